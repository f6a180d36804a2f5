"""conda-mcp's conda plugin: `conda mcp [conda-mcp options]` starts the conda-mcp server."""
