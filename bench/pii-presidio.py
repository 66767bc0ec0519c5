"""Presidio's pattern recognizers on the PII bench's messages, for bench/pii.ts to score beside the
redactor. Reads JSON lines {"text": ...} on stdin, writes one JSON line per input: the findings
[{"type", "start", "end", "entity"}] with offsets in UTF-16 code units (JavaScript's), overlaps
resolved as presidio-anonymizer does (higher score, then longer, wins).

Configuration, stated so the comparison can be judged: the no-op NLP engine (no spaCy model, so no
context words raise scores: Presidio's offline setting), every predefined recognizer whose entity is
one of the four categories the redactor redacts, each registered for one language so no language
gate hides it, the phone recognizer set to the countries the corpus covers, and the engine's
default score threshold. Entities Presidio finds outside these four categories are not asked for.
"""
import json
import sys

import tldextract

# The e-mail recognizer checks top-level domains with tldextract, which fetches the public suffix
# list on first use; the bench runs offline, so it reads the snapshot tldextract ships.
tldextract.extract = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)

from presidio_analyzer import AnalyzerEngine, RecognizerRegistry  # noqa: E402
from presidio_analyzer.nlp_engine import NoOpNlpEngine  # noqa: E402
from presidio_analyzer import predefined_recognizers as pr  # noqa: E402

LANGUAGE = "en"
# The corpus's countries (bench/pii-corpus/languages.ts, phoneCountries).
PHONE_REGIONS = ["DE", "AT", "CH", "ES", "MX", "FR", "BE", "IT", "PT", "BR", "NL", "GB", "US", "IN"]

# Presidio entity -> the redactor's category. National ids: the personal identifiers Presidio has
# for the corpus's countries (it has none for the French NIR, Dutch BSN, Portuguese NIF, Brazilian
# CPF or Mexican CURP).
ENTITY_TYPES = {
    "EMAIL_ADDRESS": "email",
    "PHONE_NUMBER": "phone",
    "CREDIT_CARD": "credit_card",
    "US_SSN": "id_number",
    "US_ITIN": "id_number",
    "UK_NINO": "id_number",
    "ES_NIF": "id_number",
    "ES_NIE": "id_number",
    "IT_FISCAL_CODE": "id_number",
    "IN_AADHAAR": "id_number",
    "DE_TAX_ID": "id_number",
}

RECOGNIZERS = [
    pr.EmailRecognizer(supported_language=LANGUAGE),
    pr.PhoneRecognizer(supported_language=LANGUAGE, supported_regions=PHONE_REGIONS),
    pr.CreditCardRecognizer(supported_language=LANGUAGE),
    pr.UsSsnRecognizer(supported_language=LANGUAGE),
    pr.UsItinRecognizer(supported_language=LANGUAGE),
    pr.UkNinoRecognizer(supported_language=LANGUAGE),
    pr.EsNifRecognizer(supported_language=LANGUAGE),
    pr.EsNieRecognizer(supported_language=LANGUAGE),
    pr.ItFiscalCodeRecognizer(supported_language=LANGUAGE),
    pr.InAadhaarRecognizer(supported_language=LANGUAGE),
    pr.DeTaxIdRecognizer(supported_language=LANGUAGE),
]


def engine():
    registry = RecognizerRegistry(supported_languages=[LANGUAGE])
    for recognizer in RECOGNIZERS:
        registry.add_recognizer(recognizer)
    nlp = NoOpNlpEngine(models=[{"lang_code": LANGUAGE, "model_name": "no_op"}])
    nlp.load()
    return AnalyzerEngine(registry=registry, nlp_engine=nlp, supported_languages=[LANGUAGE])


def utf16_offsets(text):
    """Code point index -> UTF-16 code unit index, for every index 0..len(text)."""
    out = [0]
    for ch in text:
        out.append(out[-1] + (2 if ord(ch) > 0xFFFF else 1))
    return out


def without_overlaps(results):
    kept = []
    for r in sorted(results, key=lambda r: (-r.score, -(r.end - r.start), r.start)):
        if all(r.end <= k.start or k.end <= r.start for k in kept):
            kept.append(r)
    return sorted(kept, key=lambda r: r.start)


def main():
    analyzer = engine()
    entities = list(ENTITY_TYPES)
    for raw in sys.stdin:
        if not raw.strip():
            continue
        text = json.loads(raw)["text"]
        results = analyzer.analyze(text=text, language=LANGUAGE, entities=entities)
        offsets = utf16_offsets(text)
        findings = [
            {"type": ENTITY_TYPES[r.entity_type], "start": offsets[r.start], "end": offsets[r.end], "entity": r.entity_type}
            for r in without_overlaps(results)
        ]
        sys.stdout.write(json.dumps(findings) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
