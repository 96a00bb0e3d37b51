"""Reports: markdown / CSV tables in the papers' layouts, matplotlib plots and a static HTML page."""
