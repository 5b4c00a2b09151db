// The Engram console: every page reads the memory service's own API with the key typed in (kept in this tab's
// sessionStorage only). Data is put in the page as text nodes, never as HTML, so a memory's text cannot run.
"use strict";

const state = { key: sessionStorage.getItem("engram-key") || "", tenant: sessionStorage.getItem("engram-tenant") || "",
  operator: false, opened: false, cursor: null };
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c == null ? "" : String(c)));
  return e;
}

function svg(tag, attrs, ...children) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function status(text) { $("status").textContent = text || ""; }

/** The key, and the tenant an operator reads. */
function keyHeaders() {
  const headers = { "Authorization": "Bearer " + state.key };
  if (state.operator && state.tenant) headers["X-Engram-Tenant"] = state.tenant;
  return headers;
}

async function failure(response) {
  const answer = await response.json();
  return new Error(response.status + " " + (answer.error ? answer.error.code + ": " + answer.error.message : ""));
}

async function api(method, path, body) {
  const headers = keyHeaders();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw await failure(response);
  return response.status === 204 ? {} : await response.json();
}

function attempt(action) {
  status("");
  return action().catch((e) => status(e.message));
}

// --- login and navigation ---------------------------------------------------------------------------------

async function open() {
  const who = await api("GET", "/v1/tenants?limit=1000"); // the first thousand to pick from; any other can be typed
  state.operator = who.operator;
  $("tenant-choice").hidden = !who.operator;
  $("tenants").replaceChildren(...who.tenants.map((t) => el("option", { value: t })));
  if (!who.operator) state.tenant = who.tenants[0];
  else if (!state.tenant) state.tenant = who.tenants[0] || "";
  $("tenant").value = state.tenant;
  $("who").textContent = who.operator ? "operator, reading " + state.tenant : "tenant " + state.tenant;
  sessionStorage.setItem("engram-key", state.key);
  sessionStorage.setItem("engram-tenant", state.tenant);
  state.opened = true;
  show(location.hash.slice(1) || "memories");
}

// Until a key is accepted the first screen (#welcome) stays: it says what to paste and what each page shows.
function show(page) {
  if (!state.opened) {
    status("paste an API key first");
    return;
  }
  for (const s of document.querySelectorAll("main section")) s.hidden = s.id !== "page-" + page;
  for (const b of document.querySelectorAll("nav button")) b.classList.toggle("active", b.dataset.page === page);
  if (location.hash !== "#" + page) history.replaceState(null, "", "#" + page);
  const load = { memories: () => listMemories(false), entities: loadEntities, health: loadHealth, rejects: loadRejects,
    usage: loadUsage }[page];
  if (load) attempt(load);
}

// --- memories ---------------------------------------------------------------------------------------------

async function listMemories(more) {
  const query = $("memories-query").value.trim();
  const rows = $("memories-table").tBodies[0];
  if (!more) { rows.replaceChildren(); state.cursor = null; $("memory-detail").hidden = true; }
  let records;
  if (query) {
    const type = $("memories-type").value;
    records = (await api("POST", "/v1/search", { query, k: 50, types: type ? [type] : undefined })).results;
    state.cursor = null;
  } else {
    const params = new URLSearchParams({ limit: "50" });
    for (const [name, id] of [["type", "memories-type"], ["session_id", "memories-session"], ["user_id", "memories-user"]]) {
      if ($(id).value.trim()) params.set(name, $(id).value.trim());
    }
    if (more && state.cursor) params.set("cursor", state.cursor);
    const page = await api("GET", "/v1/memories?" + params);
    records = page.records;
    state.cursor = page.next_cursor;
  }
  for (const r of records) {
    const row = el("tr", { "data-id": r.id }, el("td", {}, r.id), el("td", {}, r.type), el("td", {}, r.tier ?? ""),
      el("td", {}, r.session_id ?? ""), el("td", {}, r.user_id ?? ""), el("td", {}, r.generation ?? ""),
      el("td", {}, r.confidence == null ? "" : Number(r.confidence).toFixed(2)), el("td", { class: "text" }, r.text));
    row.addEventListener("click", () => attempt(() => openMemory(r.id)));
    rows.append(row);
  }
  $("memories-more").hidden = !state.cursor;
  status(rows.children.length === 0 ? "no memories match" : "");
}

// The export of the user in the filter (the tenant's without one) as a JSON-lines file: fetched with the key, since a
// link cannot carry it, and saved only when it ends with its end line (a stream that broke off has none).
async function exportRecords() {
  const user = $("memories-user").value.trim();
  status("exporting " + (user ? "user " + user : "tenant " + state.tenant) + " ...");
  const response = await fetch("/v1/export" + (user ? "?user_id=" + encodeURIComponent(user) : ""), { headers: keyHeaders() });
  if (!response.ok) throw await failure(response);
  const text = await response.text();
  const end = JSON.parse(text.trimEnd().split("\n").pop() || "{}");
  if (end.schema !== "cursor.v1" || end.cursor !== null) throw new Error("the export broke off before its end: export again");
  const link = el("a", { href: URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" })),
    download: state.tenant + (user ? "-" + user : "") + ".jsonl" });
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  status("exported " + end.records + " records of " + (user ? "user " + user : "tenant " + state.tenant));
}

async function openMemory(id) {
  const r = await api("GET", "/v1/memories/" + encodeURIComponent(id));
  $("memory-detail").hidden = false;
  $("memory-id").textContent = r.id;
  $("memory-text").textContent = r.text;
  const fields = [];
  for (const [k, v] of Object.entries(r)) {
    if (k === "text" || k === "id" || k === "source_ids" || k === "chain") continue;
    fields.push(el("dt", {}, k), el("dd", {}, Array.isArray(v) ? v.join(", ") : v));
  }
  $("memory-fields").replaceChildren(...fields);
  const sources = $("memory-sources");
  sources.replaceChildren();
  if (!r.source_ids || r.source_ids.length === 0) sources.append(el("li", {}, "none: an original record"));
  for (const sourceId of r.source_ids || []) {
    sources.append(linkedRecord(sourceId, (s) => s.type + ": " + s.text));
  }
  // the supersession chain, oldest first: what this memory replaced and what replaced it
  const chain = $("memory-chain");
  chain.replaceChildren();
  if (!r.chain || r.chain.length < 2) chain.append(el("li", {}, "none: nothing replaced it, it replaced nothing"));
  for (const linkId of (r.chain && r.chain.length > 1 ? r.chain : [])) {
    const item = linkId === r.id ? el("li", { "data-id": linkId, class: "this" }, "this memory: " + r.text)
      : linkedRecord(linkId, (s) => s.text + (s.superseded_by ? " (superseded)" : " (current)"));
    chain.append(item);
  }
}

// a list item naming a record, opening it on a click, followed by what describe says of it once read
function linkedRecord(id, describe) {
  const item = el("li", { "data-id": id }, el("a", { href: "#memories" }, id));
  item.firstChild.addEventListener("click", (e) => { e.preventDefault(); attempt(() => openMemory(id)); });
  api("GET", "/v1/memories/" + encodeURIComponent(id))
    .then((s) => item.append(" — " + describe(s)))
    .catch(() => item.append(" — no longer stored"));
  return item;
}

// --- context ----------------------------------------------------------------------------------------------

async function assemble() {
  const body = { query: $("context-query").value, budget_tokens: Number($("context-budget").value) };
  if ($("context-session").value.trim()) body.session_id = $("context-session").value.trim();
  if ($("context-agent").value.trim()) body.agent_id = $("context-agent").value.trim();
  const c = await api("POST", "/v1/context", body);
  $("context-result").hidden = false;
  $("context-summary").textContent = c.tokens_used + " of " + c.budget_tokens + " tokens, " + c.included.length
    + " items included, " + c.excluded.length + " excluded, "
    + (c.agent_id == null ? "shared documents only" : "for agent " + c.agent_id)
    + (c.degraded ? " (degraded: " + c.degraded_reasons.join(", ") + ")" : "");
  const bar = $("budget-bar");
  bar.replaceChildren();
  const sections = new Map();
  for (const i of c.included) {
    if (!sections.has(i.section)) sections.set(i.section, []);
    sections.get(i.section).push(i);
  }
  for (const [section, items] of sections) {
    const tokens = items.reduce((n, i) => n + i.tokens, 0);
    const part = el("span", { class: "sec-" + section, title: section + ": " + tokens + " tokens", "data-section": section });
    part.style.width = (100 * tokens / c.budget_tokens) + "%";
    bar.append(part);
  }
  const blocks = [];
  for (const [section, items] of sections) {
    const block = el("div", { class: "section", "data-section": section }, el("h3", {}, section.replace("_", " ")));
    for (const i of items) {
      block.append(el("div", { class: "item", "data-id": i.id }, el("div", { class: "meta" }, i.id + " · " + i.type + " · "
        + i.tokens + " tokens · " + i.reason), el("div", {}, i.text)));
    }
    blocks.push(block);
  }
  $("context-sections").replaceChildren(...blocks);
  $("context-excluded").tBodies[0].replaceChildren(...c.excluded.map((e) => el("tr", { "data-id": e.id },
    el("td", {}, e.id), el("td", {}, e.section), el("td", {}, e.tokens), el("td", {}, e.reason))));
  $("context-prompt").textContent = c.prompt;
}

// --- memory health ----------------------------------------------------------------------------------------

const CHARTS = [
  { title: "Records in the store", series: [["store_total", "records"]], threshold: "store_floor" },
  { title: "Distinct content ratio", series: [["distinct_content_ratio", "distinct"]], threshold: "distinct_ratio_floor", unit: 1 },
  { title: "Bigram diversity", series: [["mean_bigram_diversity", "bigrams"]], unit: 1 },
  { title: "Canary recall, nDCG and MRR", series: [["mean_recall", "recall"], ["mean_ndcg", "nDCG"], ["mean_mrr", "MRR"]],
    threshold: "recall_floor", unit: 1 },
  { title: "Accepted writes", series: [["accepted_actions", "writes"]] },
];

async function loadHealth() {
  const h = await api("GET", "/v1/health");
  const cycles = h.cycles;
  const fired = cycles.filter((c) => c.alerts.length > 0);
  $("health-summary").textContent = cycles.length + " cycles of " + h.tenant_id + ", " + fired.length
    + " with alerts (window " + h.settings.window + ", recall drop " + h.settings.recall_drop + ", entropy drop "
    + h.settings.entropy_drop + ", shrink factor " + h.settings.shrink_factor + ")";
  $("health-charts").replaceChildren(...CHARTS.map((chart) => drawChart(chart, cycles)));
  $("health-alerts").tBodies[0].replaceChildren(...fired.map((c) => el("tr", { "data-cycle": c.cycle_id },
    el("td", {}, c.cycle_id), el("td", {}, c.ts), el("td", {}, c.alerts.join(", ")))));
}

function drawChart(chart, cycles) {
  const width = 640, height = 180, left = 48, right = 12, top = 12, bottom = 24;
  const values = [];
  for (const [field] of chart.series) for (const c of cycles) values.push(c[field]);
  if (chart.threshold) for (const c of cycles) if (c.thresholds) values.push(c.thresholds[chart.threshold]);
  let max = Math.max(chart.unit || 0, ...values, 0);
  if (max === 0) max = 1;
  const x = (i) => left + (cycles.length <= 1 ? 0 : i * (width - left - right) / (cycles.length - 1));
  const y = (v) => top + (height - top - bottom) * (1 - v / max);
  const plot = svg("svg", { width, height, viewBox: "0 0 " + width + " " + height, "data-chart": chart.title },
    svg("line", { class: "axis", x1: left, y1: y(0), x2: width - right, y2: y(0) }),
    svg("text", { x: 4, y: y(max) + 4 }, formatNumber(max)), svg("text", { x: 4, y: y(0) + 4 }, "0"));
  for (const [field, label] of chart.series) {
    plot.append(svg("polyline", { class: "line", "data-series": field,
      points: cycles.map((c, i) => x(i) + "," + y(c[field])).join(" ") }));
    cycles.forEach((c, i) => plot.append(svg("circle", { class: "point", "data-series": field, "data-cycle": c.cycle_id,
      cx: x(i), cy: y(c[field]), r: 3 }, svg("title", {}, label + " " + formatNumber(c[field]) + " at " + c.cycle_id))));
  }
  if (chart.threshold) {
    const points = [];
    cycles.forEach((c, i) => { if (c.thresholds) points.push(x(i) + "," + y(c.thresholds[chart.threshold])); });
    if (points.length > 0) plot.append(svg("polyline", { class: "threshold", "data-threshold": chart.threshold, points: points.join(" ") }));
  }
  const [first] = chart.series[0];
  cycles.forEach((c, i) => {
    if (c.alerts.length > 0) {
      plot.append(svg("circle", { class: "alert", "data-cycle": c.cycle_id, cx: x(i), cy: y(c[first]), r: 7 },
        svg("title", {}, c.cycle_id + ": " + c.alerts.join(", "))));
    }
  });
  return el("div", { class: "chart" }, el("h3", {}, chart.title), plot);
}

function formatNumber(v) { return Number.isInteger(v) ? String(v) : Number(v).toFixed(3); }

// --- rejects ----------------------------------------------------------------------------------------------

async function loadRejects() {
  const answer = await api("GET", "/v1/rejects?limit=20");
  const byReason = new Map();
  for (const r of answer.rejects) {
    if (!byReason.has(r.reason_code)) byReason.set(r.reason_code, []);
    byReason.get(r.reason_code).push(r);
  }
  $("rejects-summary").textContent = answer.rejects.length === 0 ? "no rejects of " + answer.tenant_id
    : answer.rejects.length + " recent rejects of " + answer.tenant_id + " in " + byReason.size + " reasons";
  $("rejects-groups").replaceChildren(...[...byReason].map(([reason, list]) => el("div", { class: "group", "data-reason": reason },
    el("h3", {}, reason + " (" + list.length + ")" + (list[0].severity === "warning"
      ? " — warnings: each input was accepted, the message says what changed" : "")),
    el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "rejected"), el("th", {}, "from"), el("th", {}, "why"),
      el("th", {}, "original bytes"))), el("tbody", {}, ...list.map((r) => el("tr", {},
      el("td", {}, r.rejected_at), el("td", {}, r.source_topic + "/" + r.partition + "/" + r.offset), el("td", {}, r.message),
      el("td", { class: "bytes" }, escapedBytes(r.original)))))))));
}

// --- entities ---------------------------------------------------------------------------------------------

async function loadEntities() {
  const params = new URLSearchParams({ limit: "50" });
  for (const [name, id] of [["name", "entities-name"], ["session_id", "entities-session"], ["user_id", "entities-user"]]) {
    if ($(id).value.trim()) params.set(name, $(id).value.trim());
  }
  const entities = (await api("GET", "/v1/entities?" + params)).entities;
  const name = $("entities-name").value.trim().toLowerCase();
  $("entities-summary").textContent = entities.length === 0 ? "no record names " + (name || "anyone or anything") + " yet"
    : name ? "the records naming " + name + ", and what else they name" : entities.length + " most named, most records first";
  $("entities-table").tBodies[0].replaceChildren(...entities.map((e) => {
    const beside = el("td", {});
    for (const c of e.co_mentions) {
      const link = el("a", { href: "#entities" }, c.name + " (" + c.records + ")");
      link.addEventListener("click", (ev) => { ev.preventDefault(); $("entities-name").value = c.name; attempt(loadEntities); });
      beside.append(link, " ");
    }
    const newest = e.mentioned_by[0];
    const mention = el("td", { class: "text" }, newest ? newest.text : "");
    if (newest) mention.addEventListener("click", () => { show("memories"); attempt(() => openMemory(newest.id)); });
    return el("tr", { "data-name": e.name }, el("td", {}, e.name), el("td", {}, String(e.records)), beside, mention);
  }));
}

// --- usage ------------------------------------------------------------------------------------------------

async function loadUsage() {
  const answer = await api("GET", "/v1/usage");
  const days = answer.usage.slice().reverse(); // newest first
  const total = (field) => answer.usage.reduce((sum, d) => sum + d[field], 0);
  $("usage-summary").textContent = days.length === 0 ? "no usage of " + answer.tenant_id + " in the last 30 days"
    : answer.tenant_id + " in the last 30 days: " + total("records_written") + " records and " + total("bytes_written")
      + " bytes written, " + total("reads") + " reads, " + total("contexts") + " contexts";
  const fields = ["records_written", "bytes_written", "writes", "reads", "contexts", "forgets", "embed_millis"];
  $("usage-days").tBodies[0].replaceChildren(...days.map((d) => el("tr", { "data-day": d.day }, el("td", {}, d.day),
    ...fields.map((f) => el("td", {}, String(d[f]))))));
}

/** The bytes as text: printable ASCII as is, everything else as \xNN, so nothing in them is interpreted. */
function escapedBytes(base64) {
  const raw = atob(base64 || "");
  let out = "";
  for (let i = 0; i < raw.length && i < 2000; i++) {
    const b = raw.charCodeAt(i);
    out += b >= 0x20 && b < 0x7f ? raw[i] : "\\x" + b.toString(16).padStart(2, "0");
  }
  return raw.length > 2000 ? out + "… (" + raw.length + " bytes)" : out;
}

// --- forget -----------------------------------------------------------------------------------------------

async function forget() {
  const scope = $("forget-scope").value;
  const target = $("forget-target").value.trim();
  const what = { memories: "the memory", sessions: "every record of the session", users: "every record of the user" }[scope];
  if (!confirm("Forget " + what + " " + target + "? This cannot be undone.")) return;
  const answer = await api("DELETE", "/v1/" + scope + "/" + encodeURIComponent(target));
  const step = el("li", { "data-forget": answer.forget_id }, "forget " + answer.forget_id + " of " + target + ": pending");
  $("forget-progress").prepend(step);
  for (let waited = 0; waited < 600; waited++) {
    const s = await api("GET", "/v1/forgets/" + encodeURIComponent(answer.forget_id));
    if (s.status === "done") {
      step.textContent = "forget " + answer.forget_id + " of " + target + ": done, " + s.records_removed + " records removed";
      step.dataset.status = "done";
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  step.textContent += " (still pending; GET /v1/forgets/" + answer.forget_id + " tells when it is done)";
}

// --- wiring -----------------------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("key").value = state.key;
  $("login").addEventListener("submit", (e) => {
    e.preventDefault();
    state.key = $("key").value.trim();
    state.tenant = $("tenant").value.trim() || state.tenant;
    attempt(open);
  });
  for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => show(b.dataset.page));
  $("memories-filter").addEventListener("submit", (e) => { e.preventDefault(); attempt(() => listMemories(false)); });
  $("entities-filter").addEventListener("submit", (e) => { e.preventDefault(); attempt(loadEntities); });
  $("memories-more").addEventListener("click", () => attempt(() => listMemories(true)));
  $("memories-export").addEventListener("click", () => attempt(exportRecords));
  $("context-form").addEventListener("submit", (e) => { e.preventDefault(); attempt(assemble); });
  $("forget-form").addEventListener("submit", (e) => { e.preventDefault(); attempt(forget); });
  if (state.key) attempt(open);
});
