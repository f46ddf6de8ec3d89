"""The texts M-MAD's published code gives its agents (Feng et al., ACL 2025; github.com/SU-JIAYUAN/M-MAD).

The paper preset's signatures are built from these, so each text exists once. They follow the
published prompts closely; only the answer format is left out (DSPy's typed fields carry it), and a
non-translation error spans the entire translation where the published JSON wrote ``"all"``.

- ``MQM_GUIDELINE``: the shared stage-1 guidance (Google's MQM annotator guideline, Freitag et al.,
  2021): fine-grained spans, one error per span (the most severe), the two severities, and the
  non-translation rule, for every dimension agent;
- ``DIMENSION_TASKS``: each stage-1 agent's own task and subcategories (style: "awkward" only);
- ``DIMENSION_EXPERTS``: each dimension's debater, who re-examines annotations in stage 2;
- ``SEVERITY_GUIDANCE``: what every debate turn is told (lean toward minor);
- ``SPAN_RULES``: how spans map onto the typed error fields.
"""

from __future__ import annotations

MQM_GUIDELINE = (
    "You will be assessing translations at the segment level, where a segment may contain one or more "
    "sentences. Each segment is aligned with a corresponding source segment. Please identify all errors "
    "within the specified category within each translated segment. To identify an error, highlight the "
    "relevant span of text, and select a category/sub-category and severity level from the available options. "
    "(The span of text may be in the source segment if the error is a source error or an omission.) When "
    "identifying errors, please be as fine-grained as possible. For example, if a sentence contains two words "
    "that are each mistranslated, two separate mistranslation errors should be recorded. If a single stretch of "
    "text contains multiple errors, you only need to indicate the one that is most severe. For severity, Major "
    "represents errors that may confuse or mislead the reader due to a significant change in meaning or because "
    "they appear in a visible or important part of the content; Minor represents errors that don't lead to loss "
    "of meaning and wouldn't confuse or mislead the reader but would be noticed, would decrease stylistic "
    "quality, fluency or clarity, or would make the content less appealing. In case when it is not possible to "
    "reliably identify distinct errors because the translation is too badly garbled or is unrelated to the "
    "source, then mark a special category, called non-translation, that spans the entire segment. There can be "
    "at most one non-translation error per segment, and it should span the entire segment. No other errors "
    "should be identified if non-translation is selected."
)

SPAN_RULES = (
    "Give each error's span as an exact substring of the translation (of the source, with is_source_error set, "
    "for a source error or an omission). A non-translation error has subcategory \"non-translation\", severity "
    "major, and the entire translation as its span. Return an empty list if there is no error."
)

DIMENSION_TASKS: dict[str, str] = {
    "accuracy": (
        "Please check the translation for the following subcategories of accuracy errors:\n"
        "1. addition: the translation includes information not present in the source.\n"
        "2. omission: the translation is missing content from the source.\n"
        "3. mistranslation: the translation does not accurately represent the source.\n"
        "4. untranslated text: source text has been left untranslated."
    ),
    "fluency": (
        "Please check the translation for the following subcategories of fluency errors:\n"
        "1. punctuation: incorrect punctuation (for locale or style).\n"
        "2. spelling: incorrect spelling or capitalization.\n"
        "3. grammar: problems with grammar, other than orthography.\n"
        "4. register: wrong grammatical register (e.g., inappropriately informal pronouns).\n"
        "5. inconsistency: internal inconsistency (not related to terminology).\n"
        "6. character encoding: characters are garbled due to incorrect encoding."
    ),
    "terminology": (
        "Please check the translation for the following subcategories of terminology errors:\n"
        "1. inappropriate for context: terminology is non-standard or does not fit context.\n"
        "2. inconsistent use of terminology: terminology is used inconsistently."
    ),
    "style": (
        "Please check the translation for the style error:\n"
        "awkward: the translation has stylistic problems."
    ),
}

_SEVERITIES = (
    "the severity (major or minor). Major errors significantly impact meaning and may confuse or mislead the "
    "reader. Minor errors have a slight impact, but do not cause loss of meaning or confusion. In case when it "
    "is not possible to reliably identify distinct errors because the translation is too badly garbled or is "
    "unrelated to the source, then mark a special category, called non-translation. No other errors should be "
    "identified if non-translation is selected."
)

DIMENSION_EXPERTS: dict[str, str] = {
    "accuracy": (
        "Accuracy errors occur when the target content does not accurately reflect the propositional content of "
        "the source text. Review the provided translation and identify any errors in the following "
        "subcategories: addition, mistranslation, omission, and untranslated text. If errors are found, list "
        "each error with the exact error span, the subcategory, and " + _SEVERITIES
    ),
    "fluency": (
        "Fluency errors are related to the linguistic well-formedness of the text. Review the provided "
        "translation and identify any errors in the following subcategories: character encoding, grammar, "
        "inconsistency, punctuation, register, and spelling. If errors are found, list each error with the "
        "exact error span, the subcategory, and " + _SEVERITIES
    ),
    "terminology": (
        "Terminology errors occur when a term deviates from standard subject field or organizational "
        "terminology, or when the target term is not the correct equivalent of the source term. Review the "
        "provided translation and identify any errors in the following subcategories: inappropriate for "
        "context, and inconsistent use of terminology. If errors are found, list each error with the exact "
        "error span, the subcategory, and " + _SEVERITIES
    ),
    "style": (
        "Style errors occur when the text is grammatically correct but deviates from organizational style guides "
        "or uses inappropriate language. Review the provided translation and identify any style errors. If "
        "errors are found, list each error with the exact error span, the subcategory (which is always "
        "'awkward' in the style category), and " + _SEVERITIES
    ),
}

SEVERITY_GUIDANCE = (
    'When the severity is hard to decide, please lean toward "minor." Only assign "major" if it significantly '
    "impacts the meaning. Avoid assigning 'non-translation' unless absolutely necessary."
)
