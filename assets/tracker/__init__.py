"""The published tracker: pure modules that turn the warehouse's tables into a static
site, open data files and a feed, and the method switches of included implementations.

- method_switches: the configuration key or flag that turns a method on in a framework
- pages: the site's pages (Jinja2 templates in templates/, autoescaped)
- exports: every core and metrics table as Parquet and CSV, with datapackage.json
- feed: the Atom feed of new inclusions and unanswered proposals
- text: what makes untrusted text safe to show (control characters, URL schemes)
"""
