"""The cardgym model file, read as data only: a zip holding ``cardgym.json`` (what the model was trained for and how
to rebuild its policy, as JSON), ``policy.pth`` (the policy's weights) and ``policy.optimizer.pth`` (the optimiser's
state), the two ``.pth`` members in torch's tensor format under stable-baselines3's member names (so SB3's own
``model.set_parameters(path)``, which reads them weights-only too, loads them into a model of the same shape).

Nothing here unpickles: the JSON is parsed as JSON, the tensors are read with torch's weights-only loader (plain
tensors, numbers, strings and containers; any other object in the file is refused), and every value is checked
against what the policy described by the JSON needs before it is used. Members are read only up to a size the
described policy justifies (a zip bomb is refused unopened); members other than these three (such as the pickled
``data`` of a stable-baselines3 zip) are never read. Whatever is wrong with a file is reported as a one-line
:class:`ModelFileError` naming the file and the fault. The policy itself is built in :mod:`agents.ppo`, from the
whitelisted classes the JSON names. The metadata reads without torch (``cardgym agents`` names a shipped model in an
install without the train extra); torch is imported by the functions that read or write tensors.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch as th

from envs.core.game import BatchedGame
from envs.registry import env_version

METADATA_NAME = "cardgym.json"
"""Member of the model zip holding the metadata (:func:`model_metadata` plus the policy and PPO settings)."""
POLICY_MEMBER = "policy.pth"
"""Member holding the policy's ``state_dict`` (the name stable-baselines3 gives it)."""
OPTIMIZER_MEMBER = "policy.optimizer.pth"
"""Member holding the optimiser's ``state_dict`` (the name stable-baselines3 gives it)."""
FORMAT_VERSION = 2
"""Version of the layout; 1 (before this one) kept the policy's settings only in a pickle and is not read."""


ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError, RuntimeError)
"""What reading a damaged zip raises (RuntimeError: an encrypted member; NotImplementedError: an unknown
compression)."""


class ModelFileError(ValueError):
    """A model file that cannot be read, or was trained for something else (one line naming the file and fault)."""


def where(path: str | Path) -> str:
    """How messages name a model file."""
    return f"model file {str(path)!r}"


def model_metadata(game: BatchedGame) -> dict[str, Any]:
    """What a model trained on ``game`` records about the game."""
    return {
        "format": FORMAT_VERSION,
        "game": game.name,
        "env_version": env_version(game.name),
        "num_players": game.num_players,
        "options": dataclasses.asdict(game.config),
        "observation_size": int(game.observation_size),
        "num_actions": int(game.num_actions),
    }


def write_model_file(path: str | Path, metadata: dict[str, Any], tensors: dict[str, Any]) -> Path:
    """Write the zip: ``metadata`` as ``cardgym.json`` and each ``tensors`` entry (member name → state dict) with
    ``torch.save``. The file is written next to ``path`` and moved over it at the end, so an interrupted save never
    leaves a half-written model behind."""
    import torch as th

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(metadata, indent=1)
    partial = path.with_name(path.name + ".partial")
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as z:
            z.writestr(METADATA_NAME, text)
            for member, state in tensors.items():
                with z.open(member, "w", force_zip64=True) as f:
                    th.save(state, f)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return path


METADATA_TYPES = {"game": str, "env_version": str, "num_players": int, "options": dict, "observation_size": int,
                  "num_actions": int}


METADATA_MAX_BYTES = 16 * 2**20
"""Largest ``cardgym.json`` read (a long learning curve takes well under 1 MiB)."""


def read_member(path: str | Path, member: str, max_bytes: int) -> bytes | None:
    """The bytes of ``member`` of the zip at ``path`` (``None`` if it has none), checked against its CRC. A member
    that says it unpacks to more than ``max_bytes`` is refused before it is unpacked, so a zip bomb costs nothing."""
    try:
        with zipfile.ZipFile(path) as z:
            if member not in z.namelist():
                return None
            size = z.getinfo(member).file_size
            if size > max_bytes:
                raise ModelFileError(f"{where(path)}: {member} unpacks to {size:,} bytes, more than the {max_bytes:,} "
                                     "it can take")
            return z.read(member)
    except ZIP_ERRORS as e:
        raise ModelFileError(f"{where(path)} is corrupt or not a model zip: {one_line(e)}") from None


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata of a model file; :class:`ModelFileError` if it is missing, corrupt or not a cardgym model."""
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{where(path)} not found")
    text = read_member(path, METADATA_NAME, METADATA_MAX_BYTES)
    if text is None:
        raise ModelFileError(f"{where(path)} is not a cardgym model: it has no {METADATA_NAME} "
                             "(models are written by `cardgym train`)")
    try:
        meta = json.loads(text)
    except (ValueError, RecursionError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ModelFileError(f"{where(path)} has an unreadable {METADATA_NAME}: {one_line(e)}") from None
    if not isinstance(meta, dict):
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} must hold a JSON object, not {type(meta).__name__}")
    missing = [k for k in METADATA_TYPES if k not in meta]
    if missing:
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} lacks {', '.join(missing)}")
    for key, kind in METADATA_TYPES.items():
        if not isinstance(meta[key], kind) or isinstance(meta[key], bool):
            raise ModelFileError(f"{where(path)}: {METADATA_NAME} {key} must be a {kind.__name__}, "
                                 f"got {short(meta[key])}")
    return meta


def check_metadata(meta: dict[str, Any], game: BatchedGame, path: str | Path) -> None:
    """Refuse a model trained for another game or layout, or written in another format; warn about another table
    size or other options."""
    want = model_metadata(game)
    if meta["game"] != want["game"]:
        raise ModelFileError(f"{where(path)} was trained for {meta['game']!r}, not {want['game']!r}")
    if meta["env_version"] != want["env_version"]:
        version = meta["env_version"]
        shown = version if isinstance(version, str) and version.isprintable() else short(version)
        raise ModelFileError(f"{where(path)} was trained for {shown}, this cardgym plays "
                             f"{want['env_version']} (its rules, observation or actions differ: train the model again)")
    for key, what in (("observation_size", "observation size"), ("num_actions", "action count")):
        if meta[key] != want[key]:
            raise ModelFileError(
                f"{where(path)} has {what} {meta[key]} but {game.name} with these options has {want[key]} "
                f"(trained with {meta['num_players']} players and options {meta['options']})"
            )
    if meta.get("format") != FORMAT_VERSION:
        raise ModelFileError(f"{where(path)} is in model format {meta.get('format')!r}; this cardgym reads format "
                             f"{FORMAT_VERSION} only (train the model again)")
    if meta["num_players"] != want["num_players"]:
        warnings.warn(f"{where(path)} was trained at {meta['num_players']} players, playing at {want['num_players']}",
                      stacklevel=3)
    diff = {k: v for k, v in meta["options"].items() if want["options"].get(k) != v}
    if diff:
        warnings.warn(f"{where(path)} was trained with other rule options: {diff}", stacklevel=3)


# ----- JSON values ---------------------------------------------------------------------------------------------------
def short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters (a message stays one readable line)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown_key(key: str) -> str:
    """A metadata key as a message shows it: as it is, or quoted when it holds a line break or other unprintable
    character (a key comes from the file)."""
    return key if key.isprintable() else repr(key)


def one_line(error: BaseException) -> str:
    """The gist of an exception's message, on one line (torch's weights-only refusal: the refused object)."""
    text = str(error)
    marker = "WeightsUnpickler error: "
    if marker in text:
        text = text.split(marker, 1)[1]
    first = text.strip().splitlines()[0] if text.strip() else type(error).__name__
    return first.split(". ")[0].rstrip(".")


def is_number(value: Any) -> bool:
    """A finite int or float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


KINDS: dict[str, Callable[[Any], bool]] = {
    "positive integer": lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0,
    "integer of at least 2": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 2,
    "non-negative integer": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "finite number": is_number,
    "non-negative number": lambda v: is_number(v) and v >= 0,
    "non-negative number or Infinity": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0,
    "positive number": lambda v: is_number(v) and v > 0,
    "number in [0, 1]": lambda v: is_number(v) and 0 <= v <= 1,
    "boolean": lambda v: isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "JSON object": lambda v: isinstance(v, dict),
}
"""Kinds of JSON value a metadata field may be asked to hold, each with its test."""


def field(table: dict[str, Any], key: str, kind: str, path: str | Path, label: str, optional: bool = False) -> Any:
    """``table[key]``, checked to be of ``kind`` (a key of :data:`KINDS`; ``None`` too if ``optional``).
    ``label`` names the table in messages (``"policy"`` → ``policy.net_arch``; ``""`` for the top level)."""
    name = f"{label}.{shown_key(key)}" if label else shown_key(key)
    if key not in table:
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} lacks {name}")
    value = table[key]
    if value is None and optional:
        return None
    if not KINDS[kind](value):
        allowed = ("an " if kind[0] in "aeiou" else "a ") + kind + (" or null" if optional else "")
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} {name} must be {allowed}, got {short(value)}")
    return value


def named(table: dict[str, Any], key: str, choices: Iterable[str], path: str | Path, label: str) -> str:
    """``table[key]``, a name that must be one of ``choices``."""
    value = field(table, key, "string", path, label)
    if value not in choices:
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} {label}.{key} must be one of {', '.join(choices)}, "
                             f"got {short(value)}")
    return value


# ----- tensors -------------------------------------------------------------------------------------------------------
def read_tensors(path: str | Path, member: str, what: str, max_bytes: int) -> Any:
    """The object of the ``.pth`` member (at most ``max_bytes`` unpacked), read by torch's weights-only loader onto
    the CPU: plain tensors and containers, or :class:`ModelFileError` (missing member, corrupt data, or anything else
    inside)."""
    import torch as th

    data = read_member(path, member, max_bytes)
    if data is None:
        raise ModelFileError(f"{where(path)} has no {member} ({what})")
    try:
        return th.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as e:  # torch refuses a file with UnpicklingError, RuntimeError, ValueError, EOFError, ...
        raise ModelFileError(f"{where(path)}: {member} ({what}) is not a weights-only torch file: "
                             f"{one_line(e)}") from None


def check_tensor(value: Any, shape: tuple[int, ...], name: str, path: str | Path, member: str) -> None:
    """``value`` must be a finite float32 tensor of ``shape``."""
    import torch as th

    if not isinstance(value, th.Tensor):
        raise ModelFileError(f"{where(path)}: {member} entry {name!r} must be a tensor, got {type(value).__name__}")
    if tuple(value.shape) != tuple(shape) or value.dtype != th.float32:
        raise ModelFileError(f"{where(path)}: {member} tensor {name!r} is {value.dtype} {tuple(value.shape)}, the "
                             f"policy described in {METADATA_NAME} needs torch.float32 {tuple(shape)}")
    if not bool(th.isfinite(value).all()):
        raise ModelFileError(f"{where(path)}: {member} tensor {name!r} holds non-finite values")


def check_state_dict(state: Any, expected: dict[str, th.Tensor], path: str | Path) -> None:
    """The weights read from ``policy.pth`` must be exactly the tensors of ``expected`` (the ``state_dict`` of the
    policy described in the metadata, on any device): same names, shapes and dtype, finite values."""
    if not isinstance(state, dict):
        raise ModelFileError(f"{where(path)}: {POLICY_MEMBER} must hold a dict of tensors, got {type(state).__name__}")
    missing = [k for k in expected if k not in state]
    extra = [short(k, 40) for k in state if k not in expected]  # names from the file: repr, so one line
    if missing or extra:
        raise ModelFileError(f"{where(path)}: {POLICY_MEMBER} does not fit the policy described in {METADATA_NAME}"
                             + "".join(f"; {what} {', '.join(names[:3])}" + (" ..." if len(names) > 3 else "")
                                       for what, names in (("missing", missing), ("unexpected", extra)) if names))
    for name, want in expected.items():
        check_tensor(state[name], tuple(want.shape), name, path, POLICY_MEMBER)


def check_optimizer_state(saved: Any, groups: list[list[tuple[int, ...]]], state_keys: Callable[[int], set[str]],
                          path: str | Path) -> dict[int, dict[str, th.Tensor]]:
    """The optimiser state read from ``policy.optimizer.pth``, checked against the optimiser of the policy described
    in the metadata: ``groups`` holds the parameter shapes of each of its parameter groups, ``state_keys(g)`` the
    per-parameter entries of group ``g`` (Adam: ``step``, ``exp_avg``, ``exp_avg_sq``). Returns the per-parameter
    state keyed by the parameter's position (counted over the groups in order, as ``Optimizer.state_dict`` numbers
    them); a parameter the saved optimiser had no state for yet is left out. The saved groups' hyperparameters are
    not returned: they come from the metadata."""

    def fail(msg: str) -> ModelFileError:
        return ModelFileError(f"{where(path)}: {OPTIMIZER_MEMBER} {msg}")

    if not isinstance(saved, dict) or set(saved) != {"state", "param_groups"}:
        raise fail("must hold an optimiser state dict (keys state and param_groups)")
    state, saved_groups = saved["state"], saved["param_groups"]
    if not isinstance(state, dict) or not isinstance(saved_groups, list) or len(saved_groups) != len(groups):
        raise fail(f"must hold {len(groups)} parameter group(s) and a state dict")
    by_position: dict[int, dict[str, th.Tensor]] = {}
    seen: set[int] = set()
    for g, (saved_group, shapes) in enumerate(zip(saved_groups, groups, strict=True)):
        ids = saved_group.get("params") if isinstance(saved_group, dict) else None
        if (not isinstance(ids, list) or len(ids) != len(shapes)
                or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids)):
            raise fail(f"parameter group {g} must list {len(shapes)} parameter ids")
        for pid, shape in zip(ids, shapes, strict=True):
            if pid in seen:
                raise fail(f"lists parameter id {pid} twice")
            if pid in state:
                by_position[len(seen)] = check_parameter_state(state[pid], shape, state_keys(g), pid, fail)
            seen.add(pid)
    stray = [k for k in state if k not in seen]
    if stray:
        raise fail(f"holds state for unknown parameter id(s) {short(stray[:3])}")
    return by_position


def check_parameter_state(entry: Any, shape: tuple[int, ...], keys: set[str], pid: int,
                          fail: Callable[[str], ModelFileError]) -> dict[str, th.Tensor]:
    """One parameter's optimiser state: exactly ``keys``; ``step`` a scalar, the others tensors of the parameter's
    ``shape``; all finite float32, ``step`` and the ``*_sq`` averages non-negative."""
    import torch as th

    if not isinstance(entry, dict) or set(entry) != keys:
        got = sorted(map(str, entry)) if isinstance(entry, dict) else type(entry).__name__
        raise fail(f"state of parameter {pid} must have entries {', '.join(sorted(keys))}, got {short(got)}")
    for key, value in entry.items():
        want = () if key == "step" else shape
        if not isinstance(value, th.Tensor) or tuple(value.shape) != want or value.dtype != th.float32:
            got = f"{value.dtype} {tuple(value.shape)}" if isinstance(value, th.Tensor) else type(value).__name__
            raise fail(f"state {key!r} of parameter {pid} must be a torch.float32 {want} tensor, got {got}")
        if not bool(th.isfinite(value).all()):
            raise fail(f"state {key!r} of parameter {pid} holds non-finite values")
        if (key == "step" or key.endswith("_sq")) and bool((value < 0).any()):
            raise fail(f"state {key!r} of parameter {pid} holds negative values")
    return entry
