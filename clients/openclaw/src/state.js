// The plugin's small persistent state, one JSON file in its state dir: the documents it published (version, hash,
// mtime), the durable turns it committed (advancement keys, for "duplicate"), the next seq of sessions written
// through ingest(). Written atomically (temp file + rename).
import fs from "node:fs";
import path from "node:path";

const MAX_COMMITS = 5000;

export class PluginState {
  /** @param {string} dir */
  constructor(dir) {
    this.file = path.join(dir, "state.json");
    /** @type {{docs: Record<string, {sha: string, version: number, mtimeMs: number, size: number, deleted?: boolean}>,
     *   commits: string[], seq: Record<string, number>}} */
    this.data = { docs: {}, commits: [], seq: {} };
    try {
      const loaded = JSON.parse(fs.readFileSync(this.file, "utf8"));
      this.data = { docs: loaded.docs ?? {}, commits: loaded.commits ?? [], seq: loaded.seq ?? {} };
    } catch {
      // first run, or an unreadable file: start empty (documents are then re-published once, harmlessly)
    }
    this.commitSet = new Set(this.data.commits);
  }

  save() {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.data));
    fs.renameSync(tmp, this.file);
  }

  /** @param {string} key */
  hasCommit(key) {
    return this.commitSet.has(key);
  }

  /** @param {string} key */
  addCommit(key) {
    if (this.commitSet.has(key)) return;
    this.commitSet.add(key);
    this.data.commits.push(key);
    while (this.data.commits.length > MAX_COMMITS) this.commitSet.delete(/** @type {string} */ (this.data.commits.shift()));
    this.save();
  }

  /** The next seq of a session written message by message, and advance it. @param {string} session @param {number} count */
  takeSeq(session, count) {
    const next = this.data.seq[session] ?? 0;
    this.data.seq[session] = next + count;
    this.save();
    return next;
  }

  /** @param {string} session */
  forgetSession(session) {
    if (session in this.data.seq) {
      delete this.data.seq[session];
      this.save();
    }
  }
}
