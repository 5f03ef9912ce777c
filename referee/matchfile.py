"""What every game's match file shares: the seed, and its published digest;
and the frame Forfort's and Fortune & Famine's files are checked by first (an
object, no key the game does not know, the game's own ``ruleset``).

R10: the seed is secret until the match ends; its SHA-256 is public from the
start. A match file exported before the end therefore carries ``"seed": null``
and ``seed_sha256``; such a file cannot be resolved (every seeded default and
draw needs the seed), and says so. A file that carries both is checked: the
seed must hash to the digest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import Problem, RuleError

# the keys the service's export adds to a game's match file, which no game's
# contract defines and every game's reader passes over (they change no result):
# the match's name, the seed's digest, and (issue 27) the match's hash chain and,
# after the end, each order's salt and receipt (docs/verify.md)
EXPORT_KEYS = ("seed_sha256", "name", "chain", "proof")


def seed_digest(seed: str) -> str:
    """The lowercase SHA-256 hex digest of a seed, as published from the start."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def seeded_hash(seed: str, *parts: object) -> str:
    """h(parts...) of the games' seeded rules: the lowercase SHA-256 hex digest
    of the UTF-8 string ``seed:part1:part2:...`` (numbers in decimal)."""
    text = ":".join([seed, *(str(p) for p in parts)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_seed(doc: Mapping[str, Any]) -> tuple[str | None, list[Problem]]:
    """The file's seed, or the problems with it (a missing or null seed, a seed
    that does not match the file's ``seed_sha256``)."""
    seed = doc.get("seed")
    digest = doc.get("seed_sha256")
    problems: list[Problem] = []
    if seed is None and "seed" in doc:
        problems.append(
            Problem(
                "match/no_seed",
                "this match file has no seed ('seed' is null): it was exported before the "
                "match ended, and the seed is published only at the end. Export it again "
                "once the match has finished to resolve it",
                "seed",
            )
        )
    elif not isinstance(seed, str) or not seed:
        problems.append(Problem("match/bad_seed", "'seed' must be a non-empty string", "seed"))
    if digest is not None and not isinstance(digest, str):
        problems.append(
            Problem("match/bad_seed", "'seed_sha256' must be a SHA-256 hex digest", "seed_sha256")
        )
    elif isinstance(seed, str) and seed and digest is not None and seed_digest(seed) != digest:
        problems.append(
            Problem(
                "match/seed_mismatch",
                f"the seed does not match 'seed_sha256': its SHA-256 is {seed_digest(seed)}, "
                f"not {digest}",
                "seed",
            )
        )
    return (seed if not problems and isinstance(seed, str) else None), problems


def match_object(doc: object) -> Mapping[str, Any]:
    """``doc`` itself once it is an object; ``match/not_object`` otherwise."""
    if not isinstance(doc, Mapping):
        raise RuleError.single("match/not_object", "a match file must be a JSON object")
    return doc


def frame_problems(doc: Mapping[str, Any], ruleset: str, keys: Sequence[str]) -> list[Problem]:
    """The problems with a match file's frame, in this order: each top-level key
    not among ``keys`` nor :data:`EXPORT_KEYS` (``match/unknown_key``), then a
    ``ruleset`` other than ``ruleset`` (``match/unknown_ruleset``)."""
    known = [*keys, *(k for k in EXPORT_KEYS if k not in keys)]
    problems = [
        Problem(
            "match/unknown_key",
            f"the match file has the key {str(key)!r}; its keys are {', '.join(known)}",
            str(key),
        )
        for key in doc
        if key not in known
    ]
    if doc.get("ruleset") != ruleset:
        problems.append(
            Problem(
                "match/unknown_ruleset",
                f"ruleset {doc.get('ruleset')!r} is not this one; this file needs '{ruleset}'",
                "ruleset",
            )
        )
    return problems
