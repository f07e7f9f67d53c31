// The live view (`league --web`) in headless Chromium, as an audience watches it: the page
// connects to a running league, a running game's board changes move by move without a reload,
// the standings and the finished games appear, and a finished game opens in the replay viewer.
// The boards seen are printed (OBSERVED lines) for the Rust side to compare with the records.
//
// usage: node live.test.mjs --url http://127.0.0.1:PORT/ [--screenshot FILE]

import { chromium } from "playwright-core";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
if (!args.url) {
  console.error("usage: node live.test.mjs --url URL");
  process.exit(2);
}
let passed = 0;
let failed = 0;
const check = (ok, what) => {
  if (ok) passed++;
  else {
    failed++;
    console.error("FAIL: " + what);
  }
};

/** The board of the first card, as rows of cells, with its game and move number. */
async function board(page, game) {
  return page.evaluate((game) => {
    const card = game ? document.querySelector('.card[data-game="' + CSS.escape(game) + '"]')
      : document.querySelector(".card");
    if (!card) return null;
    const cells = [...card.querySelectorAll(".sq")].map((s) => s.dataset.cell);
    const n = Math.round(Math.sqrt(cells.length));
    const rows = [];
    for (let r = 0; r < n; r++) rows.push(cells.slice(r * n, (r + 1) * n).join(""));
    return { game: card.dataset.game, ply: Number(card.dataset.ply), rows };
  }, game);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const errors = [];
  const origin = new URL(args.url).origin;
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("request", (r) => { if (!r.url().startsWith(origin)) errors.push("request elsewhere: " + r.url()); });
  await page.goto(args.url);
  // A game past its first moves, then the same game some moves later: the page follows it.
  await page.waitForSelector(".card[data-ply]", { timeout: 60000 });
  await page.waitForFunction(() => [...document.querySelectorAll(".card")].some((c) => Number(c.dataset.ply) >= 2), null, { timeout: 60000 });
  const first = await board(page, null);
  check(first && first.rows.length >= 8, "a board is drawn: " + JSON.stringify(first));
  console.log("OBSERVED " + JSON.stringify(first));
  await page.waitForFunction(
    ([game, ply]) => {
      const card = document.querySelector('.card[data-game="' + CSS.escape(game) + '"]');
      return card && Number(card.dataset.ply) > ply;
    }, [first.game, first.ply], { timeout: 60000 });
  const later = await board(page, first.game);
  check(later.ply > first.ply, `the board moved on without a reload: ${first.ply} then ${later.ply}`);
  console.log("OBSERVED " + JSON.stringify(later));
  if (args.screenshot) await page.screenshot({ path: args.screenshot });
  // A finished game: in the list, and in the standings, and its link opens the viewer.
  await page.waitForSelector("#finished-list a", { timeout: 120000 });
  await page.waitForSelector("#table tr[data-bot]", { timeout: 60000 });
  const rows = await page.locator("#table tr[data-bot]").count();
  check(rows === 3, `the standings list ${rows} bots`);
  const link = page.locator("#finished-list a").first();
  const id = (await link.textContent()).trim();
  await link.click();
  await page.waitForSelector("#chips", { timeout: 30000 });
  const chips = await page.locator("#chips").textContent();
  check(chips.includes(id), `the viewer shows game ${id}; its header says "${chips}"`);
  check(errors.length === 0, `page errors or requests: ${errors.join("; ")}`);
} finally {
  await browser.close();
}
console.log(`live page: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
