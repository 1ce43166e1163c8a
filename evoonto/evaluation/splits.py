"""Seeded reciprocal k-fold splits (default two-fold, "split and swap"), stored as JSON and reused.

Protocol (paper §Evaluation, DESIGN.md §1): the questions of every database are shuffled with a seeded
RNG and cut into ``k`` folds (A, B, …) of near-equal size, so each fold covers every database. Inside
each fold, a second seeded shuffle puts ``1 - validation_fraction`` (70%) of its questions into the
*construction pool* (builder workload, evolution trajectories) and the rest into the *gate validation
set* V. Round ``i`` tests on fold ``i`` and trains on the other folds (for k = 2: build on A, test on
B; swap). Only question ids are stored — never gold.

The splits file (``splits.json`` in the workspace or run folder) is written once and every later run
reuses it; asking for other parameters than the stored ones is an error rather than a silent re-split.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from evoonto.errors import WorkloadError

FORMAT = "evoonto-splits/1"


def fold_name(index: int) -> str:
    """Fold ``0`` → ``"A"``, ``1`` → ``"B"``, …"""
    return chr(ord("A") + index)


@dataclass(frozen=True)
class Round:
    """One round of the reciprocal protocol.

    Attributes:
        index: 0-based round number; ``test_fold`` is ``fold_name(index)``.
        test_fold: name of the held-out fold.
        construction: question ids of the training folds' construction pools (builder workload).
        validation: question ids of the training folds' validation parts (gate set V).
        test: question ids of the held-out fold.
    """

    index: int
    test_fold: str
    construction: tuple[str, ...]
    validation: tuple[str, ...]
    test: tuple[str, ...]


@dataclass(frozen=True)
class Splits:
    """Fold assignment of a benchmark's questions.

    Attributes:
        seed: RNG seed.
        folds: number of folds k (≥ 2).
        validation_fraction: share of each fold that goes to the gate validation set V.
        databases: ``{db_id: {fold name: {"construction": [ids], "validation": [ids]}}}``.
    """

    seed: int
    folds: int
    validation_fraction: float
    databases: Mapping[str, Mapping[str, Mapping[str, Sequence[str]]]]

    def question_ids(self) -> set[str]:
        """Every question id covered by the splits."""
        return {qid for per_fold in self.databases.values() for part in per_fold.values()
                for ids in part.values() for qid in ids}

    def fold(self, name: str, part: str | None = None, db_id: str | None = None) -> tuple[str, ...]:
        """Ids of fold ``name`` (``part`` = ``"construction"``/``"validation"``/None for both), all dbs or one."""
        dbs = [db_id] if db_id is not None else sorted(self.databases)
        parts = (part,) if part else ("construction", "validation")
        out: list[str] = []
        for db in dbs:
            for p in parts:
                out.extend(self.databases[db][name][p])
        return tuple(out)

    def rounds(self) -> list[Round]:
        """The k rounds: round i tests on fold i and trains on all other folds."""
        names = [fold_name(i) for i in range(self.folds)]
        result = []
        for i, test_name in enumerate(names):
            train = [n for n in names if n != test_name]
            result.append(Round(
                index=i, test_fold=test_name,
                construction=tuple(q for n in train for q in self.fold(n, "construction")),
                validation=tuple(q for n in train for q in self.fold(n, "validation")),
                test=self.fold(test_name),
            ))
        return result

    def to_json(self) -> dict:
        """The JSON document stored in ``splits.json``."""
        return {"format": FORMAT, "seed": self.seed, "folds": self.folds,
                "validation_fraction": self.validation_fraction,
                "databases": {db: {f: {p: list(ids) for p, ids in parts.items()} for f, parts in per.items()}
                              for db, per in sorted(self.databases.items())}}

    @classmethod
    def from_json(cls, data: dict, *, source: str = "splits") -> "Splits":
        """Parse :meth:`to_json` output; WorkloadError when malformed."""
        try:
            if data.get("format") != FORMAT:
                raise ValueError(f"format is {data.get('format')!r}, expected {FORMAT!r}")
            splits = cls(int(data["seed"]), int(data["folds"]), float(data["validation_fraction"]),
                         {db: {f: {p: tuple(ids) for p, ids in parts.items()} for f, parts in per.items()}
                          for db, per in data["databases"].items()})
            for per in splits.databases.values():
                for i in range(splits.folds):
                    per[fold_name(i)]["construction"], per[fold_name(i)]["validation"]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise WorkloadError(f"{source}: malformed splits file ({exc})") from None
        return splits


def make_splits(questions: Iterable, *, seed: int = 0, folds: int = 2,
                validation_fraction: float = 0.3) -> Splits:
    """Split questions per database into ``folds`` folds, each into construction pool and V.

    Args:
        questions: objects with ``.id`` and ``.db_id`` (Questions; gold is never needed).
        seed: RNG seed; the same seed and questions give the same splits on every machine.
        folds: k ≥ 2.
        validation_fraction: share of each fold for the gate validation set, in [0, 1).

    Returns:
        :class:`Splits`. Ids keep their input order inside every part.

    Raises:
        WorkloadError: bad parameters or duplicate question ids.
    """
    if folds < 2:
        raise WorkloadError(f"--folds must be at least 2 (got {folds})")
    if not 0 <= validation_fraction < 1:
        raise WorkloadError(f"validation fraction must be in [0, 1) (got {validation_fraction})")
    order: dict[str, int] = {}
    per_db: dict[str, list[str]] = {}
    for n, q in enumerate(questions):
        if q.id in order:
            raise WorkloadError(f"duplicate question id {q.id!r}")
        order[q.id] = n
        per_db.setdefault(q.db_id, []).append(q.id)

    databases: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {}
    for db_id, ids in sorted(per_db.items()):
        shuffled = sorted(ids, key=order.__getitem__)
        random.Random(f"{seed}/{db_id}").shuffle(shuffled)
        databases[db_id] = {}
        for i in range(folds):
            members = shuffled[i::folds]
            random.Random(f"{seed}/{db_id}/{fold_name(i)}").shuffle(members)
            n_construction = len(members) - math.floor(len(members) * validation_fraction)
            databases[db_id][fold_name(i)] = {
                "construction": tuple(sorted(members[:n_construction], key=order.__getitem__)),
                "validation": tuple(sorted(members[n_construction:], key=order.__getitem__)),
            }
    return Splits(seed, folds, validation_fraction, databases)


def load_or_create_splits(path: Path | str, questions: Sequence, *, seed: int = 0, folds: int = 2,
                          validation_fraction: float = 0.3) -> Splits:
    """Reuse the splits stored at ``path`` or create and store them (atomic write).

    Args:
        path: the JSON file (e.g. ``<workspace>/splits.json``).
        questions: the benchmark's questions; must be exactly the ids of a stored file.
        seed, folds, validation_fraction: as in :func:`make_splits`; must equal the stored ones.

    Returns:
        the :class:`Splits`.

    Raises:
        WorkloadError: the stored file is malformed, was made with other parameters, or covers other
        questions (delete it, or pass the parameters it was made with).
    """
    path = Path(path)
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise WorkloadError(f"{path}: unreadable splits file ({exc})") from None
        splits = Splits.from_json(data, source=str(path))
        stored = (splits.seed, splits.folds, splits.validation_fraction)
        if stored != (seed, folds, validation_fraction):
            raise WorkloadError(
                f"{path} was made with seed={stored[0]}, folds={stored[1]}, validation={stored[2]}; "
                f"pass those or delete the file to re-split")
        wanted = {q.id for q in questions}
        if splits.question_ids() != wanted:
            raise WorkloadError(f"{path} covers other questions than this benchmark "
                                f"({len(splits.question_ids() ^ wanted)} differ); delete it to re-split")
        return splits
    splits = make_splits(questions, seed=seed, folds=folds, validation_fraction=validation_fraction)
    from evoonto.fileio import atomic_write, make_dirs

    make_dirs(path.parent)
    atomic_write(path, (json.dumps(splits.to_json(), indent=1) + "\n").encode("utf-8"))
    return splits
