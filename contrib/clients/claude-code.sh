#!/bin/sh
# Register diffchunk with Claude Code (user scope: available in every project).
claude mcp add --scope user diffchunk -- diffchunk-mcp
