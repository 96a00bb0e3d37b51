"""Process helpers: job pools (in-process, processes, Ray), progress bars and secret redaction."""
