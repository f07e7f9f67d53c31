// The HTML replay viewer, tested as a person uses it: export a record file with the multiversi
// binary, open the page in headless Chromium, go to given moves with the keyboard, the slider, the
// picker, the move list and a link's URL fragment, and compare every square and disc count shown
// with the record (the boards in between come from `multiversi replay --ply N`, which replays in
// Rust, not in the viewer's script). Keeps a screenshot.
//
// usage: node viewer.test.mjs --bin MULTIVERSI --records FILE.jsonl --out DIR

import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
for (const need of ["bin", "records", "out"]) {
  if (!args[need]) {
    console.error(`missing --${need}; usage: node viewer.test.mjs --bin MULTIVERSI --records FILE.jsonl --out DIR`);
    process.exit(2);
  }
}
mkdirSync(args.out, { recursive: true });

const lines = readFileSync(args.records, "utf8").split("\n").filter((l) => l.trim());
const records = lines.map((l) => JSON.parse(l));
// Seeds as written, digit for digit: JSON.parse would round those above 2^53.
const seeds = lines.map((l) => (l.match(/"seed":(\d+)/) || [])[1]);
const LETTERS = ["B", "W", "R", "G"];
let passed = 0;
let failed = 0;
const check = (ok, what) => {
  if (ok) passed++;
  else {
    failed++;
    console.error("FAIL: " + what);
  }
};

const multiversi = (...a) => execFileSync(args.bin, a, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** The board after `ply` moves as the Rust replay prints it (plain text when piped). */
function rustRows(game, ply) {
  const text = multiversi("replay", args.records, "--game", String(game + 1), "--ply", String(ply));
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.startsWith(`Board after move ${ply} of`));
  if (at < 0) throw new Error(`no board in replay output:\n${text}`);
  const rows = [];
  for (const line of lines.slice(at + 2)) {
    if (!/^\s*\d+ /.test(line.slice(0, 4))) break;
    rows.push(line.slice(4).split(" ").join(""));
  }
  return rows;
}

function countsOf(rows) {
  const n = { B: 0, W: 0, R: 0, G: 0, N: 0 };
  for (const row of rows) for (const c of row) if (c in n) n[c]++;
  return n;
}

/** What the page shows: each square's content as drawn, and the disc counts in the players panel. */
async function shown(page) {
  return page.evaluate(() => {
    const cells = {};
    for (const sq of document.querySelectorAll("#board .sq")) {
      const disc = sq.querySelector(".disc");
      const drawn = disc ? [...disc.classList].find((c) => c.length === 1)
        : sq.classList.contains("off") ? "-" : sq.classList.contains("blocked") ? "#" : ".";
      cells[sq.dataset.square] = { data: sq.dataset.cell, drawn, last: sq.classList.contains("last"), flipped: sq.classList.contains("flipped") };
    }
    const counts = {};
    for (const c of document.querySelectorAll("[data-count-seat]")) counts[c.dataset.countSeat] = Number(c.textContent);
    return { cells, counts, ply: Number(document.getElementById("ply").dataset.ply), slider: Number(document.getElementById("slider").value) };
  });
}

async function expectBoard(page, game, ply, rows, label) {
  const rec = records[game];
  const s = await shown(page);
  check(s.ply === ply && s.slider === ply, `${label}: page shows move ${s.ply} (slider ${s.slider}), expected ${ply}`);
  let bad = [];
  rows.forEach((row, r) => [...row].forEach((c, col) => {
    const name = String.fromCharCode(97 + col) + (r + 1);
    const cell = s.cells[name];
    if (!cell || cell.data !== c || cell.drawn !== c) bad.push(`${name}: record ${c}, page ${cell ? cell.data + "/" + cell.drawn : "missing"}`);
  }));
  check(bad.length === 0, `${label}: board differs: ${bad.slice(0, 5).join("; ")}`);
  const counts = countsOf(rows);
  for (let seat = 0; seat < rec.rules.players; seat++) {
    check(s.counts[seat] === counts[LETTERS[seat]], `${label}: ${LETTERS[seat]} count ${s.counts[seat]}, expected ${counts[LETTERS[seat]]}`);
  }
  if (rec.rules.players === 3) check(s.counts.neutral === counts.N, `${label}: neutral count ${s.counts.neutral}, expected ${counts.N}`);
  if (ply > 0) {
    const m = rec.moves[ply - 1];
    check(s.cells[m.square].last, `${label}: last move ${m.square} not highlighted`);
    check(m.flips.every((f) => s.cells[f].flipped), `${label}: flips ${m.flips.join(" ")} not all highlighted`);
  }
  return s;
}

/** The referee's opening moves (the record's `opening`) are shown as the opening, apart from the
 *  bots' play: their rows in the move list are marked and carry no time, a heading stands before
 *  each part, the line under the board at move 1 names the opening and no time, and the players'
 *  move counts leave them out. The page must be at move 1 of `game`. */
async function checkOpening(page, game, label) {
  const rec = records[game];
  const opening = rec.opening || 0;
  const rows = await page.evaluate(() => [...document.querySelectorAll("#moves tr.mv")].map((tr) => ({
    opening: tr.classList.contains("opening"), ms: tr.querySelector("td.ms").textContent,
    who: tr.children[1].textContent,
  })));
  const marked = rows.filter((r) => r.opening).length;
  check(marked === opening, `${label}: ${marked} moves shown as the opening, record's opening is ${opening}`);
  rows.slice(0, opening).forEach((r, i) => {
    check(r.ms === "", `${label}: opening move ${i + 1} shows a time "${r.ms}"`);
    check(r.who.includes("opening"), `${label}: opening move ${i + 1} shown as played by "${r.who}"`);
  });
  rows.slice(opening).forEach((r, i) => check(r.ms !== "", `${label}: move ${opening + i + 1} shows no time`));
  const sections = await page.locator("#moves tr.sect").allTextContents();
  const want = opening > 0 ? ["Opening", "Play"] : [];
  check(sections.length === want.length && sections.every((t, i) => t.startsWith(want[i])),
    `${label}: move list headings ${JSON.stringify(sections)}, expected ${JSON.stringify(want)}`);
  const now = await page.locator("#now").textContent();
  if (opening > 0) {
    check(now.startsWith("Opening move 1 of " + opening) && !now.includes(" ms"),
      `${label}: move 1 described as "${now}"`);
  } else {
    check(!now.includes("Opening") && now.includes(" ms"), `${label}: move 1 described as "${now}"`);
  }
  const subs = await page.locator("#players .player[data-seat] .sub").allTextContents();
  for (let s = 0; s < rec.rules.players; s++) {
    const played = rec.moves.filter((m, i) => m.seat === s && i >= opening).length;
    check(subs[s].startsWith(played + (played === 1 ? " move" : " moves")),
      `${label}: seat ${s} shown with "${subs[s]}", the bot played ${played} moves`);
    check(subs[s].includes("started again") === Boolean(rec.seats[s].restarted),
      `${label}: seat ${s} shown with "${subs[s]}", restarted ${Boolean(rec.seats[s].restarted)}`);
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1360, height: 940 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) errors.push("network request: " + r.url()); });

  // 1. Every game of the file in one page, chosen with the picker.
  const all = join(args.out, "all.html");
  multiversi("replay", args.records, "--html", all);
  await page.goto(pathToFileURL(all).href);
  for (let game = 0; game < records.length; game++) {
    const rec = records[game];
    const n = rec.moves.length;
    await page.selectOption("#picker", String(game));
    // The picker opens a game at its start.
    await expectBoard(page, game, 0, rec.initial_rows, `game ${game + 1} start (picker)`);
    await page.keyboard.press("ArrowRight");
    await expectBoard(page, game, 1, rustRows(game, 1), `game ${game + 1} move 1 (→ key)`);
    await checkOpening(page, game, `game ${game + 1}`);
    const mid = Math.floor(n / 2);
    await page.locator("#slider").fill(String(mid));
    await expectBoard(page, game, mid, rustRows(game, mid), `game ${game + 1} move ${mid} (slider)`);
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("PageDown");
    await expectBoard(page, game, Math.min(n, mid + 10), rustRows(game, Math.min(n, mid + 10)), `game ${game + 1} move ${mid + 10} (PgDn)`);
    await page.keyboard.press("End");
    const end = await expectBoard(page, game, n, rec.final_rows, `game ${game + 1} end (End key)`);
    for (let seat = 0; seat < rec.rules.players; seat++) {
      check(end.counts[seat] === rec.scores[seat], `game ${game + 1}: final count of seat ${seat} ${end.counts[seat]}, record score ${rec.scores[seat]}`);
    }
    const outcome = await page.locator("#outcome").textContent();
    const want = rec.result.kind === "win" ? ["Black", "White", "Red", "Green"][rec.result.winner] + " (" : "draw";
    check(outcome.includes(want), `game ${game + 1}: result shown "${outcome}", expected it to name ${want}`);
    const names = await page.locator("#players .player[data-seat] .name").allTextContents();
    rec.seats.forEach((seat, i) => check(names[i] && names[i].includes(seat.name), `game ${game + 1}: seat ${i} shown as "${names[i]}", record name "${seat.name}"`));
    check((await page.title()).startsWith("multiversi replay"), `game ${game + 1}: page title "${await page.title()}"`);
    const faults = await page.locator(".fault").count();
    check(faults === rec.faults.length, `game ${game + 1}: ${faults} faults shown, record has ${rec.faults.length}`);
    const clipped = await page.evaluate(() => [...document.querySelectorAll(".fault pre")]
      .filter((pre) => pre.scrollHeight > pre.clientHeight + 1 || pre.scrollWidth > pre.clientWidth + 1).length);
    check(clipped === 0, `game ${game + 1}: ${clipped} fault boxes clip their text`);
    if (seeds[game]) {
      const chips = await page.locator("#chips").textContent();
      check(chips.includes("seed " + seeds[game]), `game ${game + 1}: seed shown as "${chips}", record has ${seeds[game]}`);
    }
    await page.keyboard.press("Home");
    await expectBoard(page, game, 0, rec.initial_rows, `game ${game + 1} start (Home key)`);
  }

  // 2. A link to a position: the fragment picks the game (counted from 1) and the move, stepping
  // keeps it up to date, and a fragment that names no position of the file is ignored.
  const hashOf = () => page.evaluate(() => location.hash);
  const linkGame = Math.min(2, records.length - 1);
  const linkPly = Math.min(records[linkGame].moves.length - 1, 17);
  const openAt = async (hash) => {
    await page.goto("about:blank"); // a new document, not a jump within the same one
    await page.goto(pathToFileURL(all).href + hash);
  };
  await openAt(`#game=${linkGame + 1}&ply=${linkPly}`);
  await expectBoard(page, linkGame, linkPly, rustRows(linkGame, linkPly), `link #game=${linkGame + 1}&ply=${linkPly}`);
  check(await page.locator("#picker").inputValue() === String(linkGame), "link: the picker shows the linked game");
  await page.keyboard.press("ArrowRight");
  await expectBoard(page, linkGame, linkPly + 1, rustRows(linkGame, linkPly + 1), "link then → key");
  const stepped = await hashOf();
  check(stepped === `#game=${linkGame + 1}&ply=${linkPly + 1}`, `link then → key: fragment ${stepped}`);
  await page.selectOption("#picker", "0");
  check(await hashOf() === "#game=1&ply=0", `picker: fragment ${await hashOf()}`);
  // A fragment changed in the address bar moves there without a reload.
  await page.evaluate((h) => { location.hash = h; }, `#game=${linkGame + 1}&ply=${linkPly}`);
  await page.waitForFunction((g) => document.getElementById("picker").value === g, String(linkGame));
  await expectBoard(page, linkGame, linkPly, rustRows(linkGame, linkPly), "fragment changed on the page");
  for (const bad of ["#game=0&ply=3", `#game=${records.length + 1}`, "#game=1&ply=9999", "#game=1&ply=x", "#ply=-1", "#nothing"]) {
    await openAt(bad);
    // Ignored: the page opens as without a fragment (the first game at its end).
    await expectBoard(page, 0, records[0].moves.length, records[0].final_rows, `invalid fragment ${bad}`);
  }
  const back = await page.evaluate(() => history.length);
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  check(await page.evaluate(() => history.length) === back, "stepping adds no history entries");

  // 3. One game alone, opened at a given move; the move list jumps; then the screenshot.
  const pick = records.findIndex((r) => r.faults.length > 0 && r.rules.board === "octagon");
  const game = pick >= 0 ? pick : 0;
  const rec = records[game];
  const one = join(args.out, "one.html");
  multiversi("replay", args.records, "--game", rec.game, "--ply", "10", "--html", one);
  await page.goto(pathToFileURL(one).href);
  check(!(await page.locator("#picker").isVisible()), "single game: the picker is hidden");
  await expectBoard(page, game, 10, rustRows(game, 10), "single game opened with --ply 10");
  const target = Math.min(rec.moves.length, (rec.faults[0]?.ply ?? 20) + 6);
  await page.locator(`tr[data-move="${target}"]`).click();
  await expectBoard(page, game, target, rustRows(game, target), `single game move ${target} (move list)`);
  const shot = args.screenshot || join(args.out, "replay-viewer.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log("screenshot: " + shot);

  // 4. A phone's width (390 px): every board fits its card, the page does not scroll sideways,
  // and the move list's last column (the time) is inside the list's box.
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  phone.on("pageerror", (e) => errors.push(String(e)));
  await phone.goto(pathToFileURL(all).href);
  for (let game = 0; game < records.length; game++) {
    await phone.selectOption("#picker", String(game));
    const fit = await phone.evaluate(() => {
      const board = document.getElementById("board").getBoundingClientRect();
      const card = document.getElementById("board").closest(".panel").getBoundingClientRect();
      const list = document.getElementById("moves");
      const box = list.getBoundingClientRect();
      const ms = list.querySelector("tr.mv td.ms").getBoundingClientRect();
      return {
        board: [board.left, board.right], card: [card.left, card.right],
        page: document.scrollingElement.scrollWidth, width: window.innerWidth,
        ms: ms.right, box: box.right, listScroll: list.scrollWidth - list.clientWidth,
      };
    });
    const label = `390 px, game ${game + 1} (${records[game].rules.board})`;
    check(fit.board[0] >= fit.card[0] && fit.board[1] <= fit.card[1],
      `${label}: board ${fit.board} spills out of its card ${fit.card}`);
    check(fit.page <= fit.width, `${label}: the page is ${fit.page} px wide in a ${fit.width} px window`);
    check(fit.ms <= fit.box + 0.5 && fit.listScroll <= 0,
      `${label}: the move list's time column ends at ${fit.ms}, its box at ${fit.box} (scrolls ${fit.listScroll} px)`);
  }
  await phone.screenshot({ path: join(args.out, "replay-viewer-390px.png"), fullPage: true });

  check(errors.length === 0, "page errors or network requests: " + errors.join(" | "));
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
