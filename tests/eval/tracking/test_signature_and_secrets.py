from tribunal import __version__
from tribunal.secrets import redact, redact_text
from tribunal.eval.tracking.run_signatures import HypRunSignature
from tribunal.eval.tracking.signature import files_hash, text_hash


def test_signature_pins_fields_in_order():
    sig = HypRunSignature(instances="i1@abc", depths=(1, 2), reruns=3, lm="openai/gpt-4o")
    assert str(sig) == f"task:hyp-run|instances:i1@abc|depths:1,2|reruns:3|lm:openai/gpt-4o|v:{__version__}"


def test_signature_keeps_separators_unambiguous():
    sig = HypRunSignature(instances="a|b:c", depths=(1,), reruns=1, lm="m")
    assert "|instances:a\\|b\\:c|" in str(sig)


def test_files_hash_changes_with_content_and_name(tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("x")
    b = tmp_path / "b.txt"
    b.write_text("y")
    first = files_hash([a, b], root=tmp_path)
    assert files_hash([b, a], root=tmp_path) == first
    b.write_text("z")
    assert files_hash([a, b], root=tmp_path) != first
    assert len(text_hash("abc")) == 12


def test_redaction_masks_env_secrets_and_secret_keys():
    env = {"OPENAI_API_KEY": "sk-test-1234567890", "HOME": "/root"}
    assert redact_text("key sk-test-1234567890 here", env) == "key *** here"
    data = {"api_key": "whatever", "lm": {"model": "x", "note": "uses sk-test-1234567890"}, "home": "/root"}
    assert redact(data, env) == {"api_key": "***", "lm": {"model": "x", "note": "uses ***"}, "home": "/root"}
