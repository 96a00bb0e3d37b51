"""`egoworld view`: a local web app to look at benchmarks and runs, compare models and record human
review decisions and human baseline answers."""
