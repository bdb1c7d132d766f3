"""Reports: sections, findings (the diagnosis rules), words (i18n), HTML and PDF."""
