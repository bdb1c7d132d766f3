"""File names of the reports per language, light enough for the Snakefile to import.

English keeps the names every user and script relies on (``report.md``,
``index.html``); another language adds its code before the extension
(``report.zh.md``, ``index.zh.html``), so the reports in every language coexist in one
folder, beside one ``figures/`` and one ``summary.csv``, and building one never touches
another.
"""

from nsightflow.i18n import DEFAULT_LANGUAGE, parse_language


def report_stem(language: str = DEFAULT_LANGUAGE) -> str:
    """``report`` in English, ``report.<language>`` otherwise.

    Raises:
        ValueError: The language is not one the catalogue has.
    """
    lang = parse_language(language)
    return "report" if lang == DEFAULT_LANGUAGE else f"report.{lang}"


def index_stem(language: str = DEFAULT_LANGUAGE) -> str:
    """``index`` in English, ``index.<language>`` otherwise."""
    return report_stem(language).replace("report", "index", 1)


def stem_language(stem: str) -> str:
    """The language a stem names: ``report.zh`` -> ``zh``, ``report`` -> ``en``.

    Raises:
        ValueError: The stem names a language the catalogue does not have.
    """
    return parse_language(stem.partition(".")[2] or DEFAULT_LANGUAGE)
