"""The build of engram-client (its metadata is in pyproject.toml): puts the published JSON Schemas of Engram's
payloads, whose one copy is docs/schemas in the Engram repository, into the package as engram_client/schemas, for
engram_client.kafka's validation. A wheel built from the repository copies them from docs/schemas; an sdist carries
them, so a wheel built from it has them too."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
PUBLISHED = HERE.parent.parent / "docs" / "schemas"
CARRIED = HERE / "engram_client" / "schemas"  # in an sdist only


def published_schemas() -> Path:
    for folder in (PUBLISHED, CARRIED):
        if (folder / "turn.v1.json").is_file():
            return folder
    raise SystemExit(f"engram-client: the published schemas are not at {PUBLISHED}: build it from the Engram "
                     "repository (pip install ./clients/python) or from its sdist")


def copy_schemas(target: Path) -> None:
    source = published_schemas()
    if source.resolve() == target.resolve():
        return
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for schema in sorted(source.glob("*.json")):
        shutil.copyfile(schema, target / schema.name)


class BuildPyWithSchemas(build_py):
    def run(self) -> None:
        super().run()
        copy_schemas(Path(self.build_lib) / "engram_client" / "schemas")


class SdistWithSchemas(sdist):
    def make_release_tree(self, base_dir, files) -> None:
        super().make_release_tree(base_dir, files)
        copy_schemas(Path(base_dir) / "engram_client" / "schemas")


setup(cmdclass={"build_py": BuildPyWithSchemas, "sdist": SdistWithSchemas})
