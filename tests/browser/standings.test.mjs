// The standings page in headless Chromium, as a person uses it: it loads without a script error
// or a network request, its plot draws one point per bot, and a game's number opens that game in
// the replay viewer beside it (the viewer's header names the same game id as the page's row).
//
// usage: node standings.test.mjs --dir DIR   (DIR holds standings.html and games.html)

import { chromium } from "playwright-core";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
if (!args.dir) {
  console.error("usage: node standings.test.mjs --dir DIR");
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

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) errors.push("network request: " + r.url()); });
  await page.goto(pathToFileURL(join(args.dir, "standings.html")).href);
  const bots = await page.locator("#standings tr").count() - 1;
  check(bots >= 2, `standings table has ${bots} bots`);
  const points = await page.locator("#plot circle.point").count();
  check(points === bots, `plot draws ${points} points for ${bots} bots`);
  const box = await page.locator("#plot").boundingBox();
  check(box && box.width > 300 && box.height > 30, `plot is drawn (${JSON.stringify(box)})`);
  const links = page.locator("#game-list a");
  const games = await links.count();
  check(games >= 2, `${games} game links`);
  for (const n of [1, games]) {
    await page.goto(pathToFileURL(join(args.dir, "standings.html")).href);
    const row = page.locator("#game-list tr").nth(n);
    const id = (await row.locator("td").nth(1).textContent()).trim();
    await row.locator("a").click();
    await page.waitForURL(/games\.html#game=/);
    check(new RegExp(`games\\.html#game=${n}(&|$)`).test(page.url()), `link ${n} went to ${page.url()}`);
    const chips = await page.locator("#chips").textContent();
    check(chips.includes(id), `viewer shows game ${id} for link ${n}; its header says "${chips}"`);
  }
  check(errors.length === 0, `page errors or requests: ${errors.join("; ")}`);
} finally {
  await browser.close();
}
console.log(`standings page: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
