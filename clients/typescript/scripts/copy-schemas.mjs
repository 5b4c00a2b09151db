// Copies the published JSON Schemas of Engram's payloads (docs/schemas, their one copy) into this package's
// schemas/ for engram/kafka, before every build and pack. Outside the Engram repository (an unpacked tarball) the
// schemas/ it was packed with stay.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const published = fileURLToPath(new URL("../../../docs/schemas/", import.meta.url));
const packaged = fileURLToPath(new URL("../schemas/", import.meta.url));
if (existsSync(published)) {
  rmSync(packaged, { recursive: true, force: true });
  mkdirSync(packaged);
  for (const name of readdirSync(published).filter((n) => n.endsWith(".json"))) {
    copyFileSync(published + name, packaged + name);
  }
} else if (!existsSync(packaged + "turn.v1.json")) {
  console.error(`copy-schemas: neither ${published} nor ${packaged} holds the schemas`);
  process.exit(1);
}
