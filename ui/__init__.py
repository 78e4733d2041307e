"""The dashboard's helper modules: what app.py and the pages share (store handle, cached reads, URL state,
access, page parts). Not pages: pages/ holds only the pages, one module each, listed in ui/page_table.py."""
