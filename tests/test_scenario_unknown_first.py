"""A scenario file's unknown sections and keys are reported (with their "did you mean") before
anything missing (issue #36): a typo in one section of an otherwise empty file is named as a typo,
not as the first missing section."""

from __future__ import annotations

import pytest

from mopt.core.errors import InputError
from mopt.core.family import families
from mopt.scenario import RUN_KEYS, load_scenario


def _cases():
    for name, family in sorted(families().items()):
        for section, keys in {**family.scenario_keys(), "run": RUN_KEYS}.items():
            for key in keys:
                typo = key[:-1] if len(key) >= 4 else key + "x"
                if typo not in keys:
                    yield pytest.param(name, section, key, typo, id=f"{name}-{section}-{key}")


@pytest.mark.parametrize("family, section, key, typo", list(_cases()))
def test_a_typo_comes_before_the_missing_sections(tmp_path, family, section, key, typo):
    path = tmp_path / "s.toml"
    path.write_text(f'family = "{family}"\n[{section}]\n{typo} = 1\n')
    with pytest.raises(InputError) as exc:
        load_scenario(path)
    text = str(exc.value)
    assert text.startswith(f"{path}: [{section}] unknown key '{typo}'"), text
    assert "missing" not in text


@pytest.mark.parametrize("family", sorted(families()))
def test_an_unknown_section_comes_before_the_missing_ones(tmp_path, family):
    path = tmp_path / "s.toml"
    path.write_text(f'family = "{family}"\n[rnu]\nseed = 1\n')
    with pytest.raises(InputError, match=r"unknown section \[rnu\]; did you mean \[run\]\?"):
        load_scenario(path)


@pytest.mark.parametrize("text, message", [
    ("[environment]\nn_task = 150\n", "[environment] unknown key 'n_task'; did you mean 'n_tasks'?"),
    ("[run]\nsed = 3\n", "[run] unknown key 'sed'; did you mean 'seed'?"),
    # a typo in [run] of a file whose [environment] lacks keys: the typo first
    ("[environment]\nn_tasks = 150\n[run]\nsed = 3\n", "[run] unknown key 'sed'; did you mean 'seed'?"),
])  # fmt: skip
def test_the_issue_examples(tmp_path, text, message):
    path = tmp_path / "s.toml"
    path.write_text('family = "expert"\n' + text)
    with pytest.raises(InputError) as exc:
        load_scenario(path)
    assert str(exc.value) == f"{path}: {message}"


def test_missing_sections_still_reported_once_every_key_is_known(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('family = "expert"\n[run]\nseed = 3\n')
    with pytest.raises(InputError, match=r"missing section \[environment\]"):
        load_scenario(path)
