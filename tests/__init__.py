"""The test suite; a package so that ``tests.property`` has one name for every tool."""
