"""A PEP 517 build backend in the standard library, so that ``pip install
./python`` works offline: it builds the wheel (and sdist) of the
``gridsched`` package from this folder, with no build dependency to
download.  The project's metadata comes from pyproject.toml."""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "gridsched"


def _project():
    path = os.path.join(HERE, "pyproject.toml")
    if tomllib is not None:
        with open(path, "rb") as f:
            return tomllib.load(f)["project"]
    # Enough of TOML for this file's [project] table of strings.
    proj, section = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                section = line.strip("[]")
                continue
            m = re.match(r'(\w[\w-]*)\s*=\s*"(.*)"$', line)
            if section == "project" and m:
                proj[m.group(1)] = m.group(2)
    return proj


def _dist():
    p = _project()
    return p["name"], p["version"]


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: %s" % p["name"], "Version: %s" % p["version"],
             "Summary: %s" % p.get("description", ""), "Requires-Python: %s" % p.get("requires-python", ">=3.8"),
             "License: MIT"]
    for extra, reqs in sorted((p.get("optional-dependencies") or {}).items()):
        lines.append("Provides-Extra: %s" % extra)
        for r in reqs:
            lines.append('Requires-Dist: %s; extra == "%s"' % (r, extra))
    readme = os.path.join(HERE, "README.md")
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme) as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def _files():
    out = []
    root = os.path.join(HERE, PACKAGE)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".py", ".typed", ".json")):
                full = os.path.join(dirpath, name)
                out.append((os.path.relpath(full, HERE).replace(os.sep, "/"), full))
    return out


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def _wheel(wheel_directory, members):
    name, version = _dist()
    distinfo = "%s-%s.dist-info" % (name, version)
    wheel_name = "%s-%s-py3-none-any.whl" % (name, version)
    records = []
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        def add(arcname, data):
            zi = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
            records.append(_record_line(arcname, data))
        for arcname, data in members:
            add(arcname, data)
        add(distinfo + "/METADATA", _metadata().encode())
        add(distinfo + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: gridsched _build/backend.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        add(distinfo + "/top_level.txt", (PACKAGE + "\n").encode())
        records.append(distinfo + "/RECORD,,")
        zi = zipfile.ZipInfo(distinfo + "/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        zi.external_attr = 0o644 << 16
        z.writestr(zi, "\n".join(records) + "\n")
    return wheel_name


# --- PEP 517 ---

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    name, version = _dist()
    distinfo = "%s-%s.dist-info" % (name, version)
    os.makedirs(os.path.join(metadata_directory, distinfo), exist_ok=True)
    with open(os.path.join(metadata_directory, distinfo, "METADATA"), "w") as f:
        f.write(_metadata())
    return distinfo


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    members = []
    for arcname, full in _files():
        with open(full, "rb") as f:
            members.append((arcname, f.read()))
    return _wheel(wheel_directory, members)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """An editable install: a .pth file puts this folder on sys.path."""
    return _wheel(wheel_directory, [(PACKAGE + "_editable.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    name, version = _dist()
    base = "%s-%s" % (name, version)
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as t:
        def add(rel):
            full = os.path.join(HERE, rel)
            info = t.gettarinfo(full, base + "/" + rel.replace(os.sep, "/"))
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            with open(full, "rb") as f:
                t.addfile(info, f)
        for rel in ["pyproject.toml", "README.md", os.path.join("_build", "backend.py")]:
            if os.path.exists(os.path.join(HERE, rel)):
                add(rel)
        for arcname, _ in _files():
            add(arcname)
        meta = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)).encode()
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size = len(meta)
        t.addfile(info, io.BytesIO(meta))
    return base + ".tar.gz"
