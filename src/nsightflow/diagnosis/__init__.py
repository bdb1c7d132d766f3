"""The diagnosis: rules that name each variant's causes and each step's reasons.

Run over the analysis tables, the findings are records (``findings.csv``) whose
sentences are message keys with their fields; the report renders them in each
language. Pure functions over frames, apart from :func:`build.write_findings`.
"""
