"""The report: rendering of the analysis and findings tables.

Markdown sections in the language in force, then HTML and PDF; the index of every
family's report; and ``compare.md``, what changed between two runs. The diagnosis is
read from ``findings.csv``, never computed here: without that file the report names
no cause and says how to write it.
"""
