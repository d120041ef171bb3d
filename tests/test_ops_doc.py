"""docs/ops.md is generated from the op declarations: it must be up to date."""
import gen_ops_doc


def test_ops_md_is_up_to_date():
    with open(gen_ops_doc.DOC) as f:
        have = f.read()
    assert have == gen_ops_doc.render(), (
        "docs/ops.md is out of date: run PYTHONPATH=src python tests/gen_ops_doc.py")


def test_ops_md_lists_every_declared_op():
    from leafgrad.ops._registry import OPS
    text = gen_ops_doc.render()
    missing = [n for n in OPS if "| `%s` |" % n not in text]
    assert not missing, missing
