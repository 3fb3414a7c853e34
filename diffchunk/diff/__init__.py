"""The diff pipeline: parse -> filter -> chunk -> format (no click, no mcp)."""
