package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dplab/dplab/harness/run"
)

// TestReportCLIErrors: a missing folder, a folder without a store and
// arguments that are all files are bad input (exit 2) naming the path; plain
// files among result folders are skipped with one warning.
func TestReportCLIErrors(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "r.html")
	file := filepath.Join(tmp, "a.go")
	if err := os.WriteFile(file, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(tmp, "nope")}, "nope is not a result directory: no such directory"},
		{[]string{tmp}, "holds no trials.jsonl (run 'dplab run SPEC.toml' to make one)"},
		{[]string{file}, "none of the 1 argument(s) is a result folder"},
	} {
		code, _, stderr := runMain(t, append([]string{"report", "-o", out}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("report %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	// No arguments: the result folders under ./runs (run.DefaultRoot) —
	// here none, then a runs/ holding no result folder (run in a directory
	// of its own: the checkout's runs/ gains folders whenever someone runs
	// a spec, e.g. make quickstart).
	t.Run("no arguments", func(t *testing.T) {
		wd := t.TempDir()
		t.Chdir(wd)
		code, _, stderr := runMain(t, "report", "-o", out)
		if want := "no RESULTDIR given and no " + run.DefaultRoot + "/ folder here"; code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("report: exit %d, stderr %q; want 2 and %q", code, stderr, want)
		}
		if err := os.MkdirAll(filepath.Join(wd, run.DefaultRoot, "empty"), 0o755); err != nil {
			t.Fatal(err)
		}
		code, _, stderr = runMain(t, "report", "-o", out)
		if want := "no result folder under " + run.DefaultRoot + "/"; code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("report: exit %d, stderr %q; want 2 and %q", code, stderr, want)
		}
	})
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed report wrote its output")
	}
	spec := filepath.Join(tmp, "cli.toml")
	if err := os.WriteFile(spec, []byte(cliSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "res")
	if code, _, stderr := runMain(t, "run", spec, "--out", dir); code != 0 {
		t.Fatalf("run: %d %s", code, stderr)
	}
	// An -o the page cannot be written to is bad input, told before the
	// page is built: a missing folder, a file as the folder, a folder as -o.
	for _, tc := range []struct{ o, want string }{
		{filepath.Join(tmp, "missing", "r.html"), "its folder " + filepath.Join(tmp, "missing")},
		{filepath.Join(file, "r.html"), file + " is not a folder"},
		{tmp, tmp + " is a directory"},
	} {
		code, _, stderr := runMain(t, "report", dir, "-o", tc.o)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("report -o %s: exit %d, stderr %q; want 2 and %q", tc.o, code, stderr, tc.want)
		}
	}
	code, stdout, stderr := runMain(t, "report", dir, file, "-o", out)
	if code != 0 || !strings.Contains(stderr, "skipping 1 file(s), not result folders: "+file) || !strings.Contains(stdout, "wrote "+out+" (1 result folder(s)") {
		t.Errorf("report with a file: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// An audit grid's folder (dplab run of an [audit] spec; it used to be
	// a second store, audits.jsonl, with its own page section) is an
	// ordinary run folder, shown beside the runs', as 'dplab report
	// runs/*' and 'dplab report' without arguments give it, and alone:
	// its cells (one per audit), its figure and its table.
	auditDir := quickAuditGridCopy(t)
	code, stdout, stderr = runMain(t, "report", dir, auditDir, "-o", out)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "wrote "+out+" (2 result folder(s)") {
		t.Errorf("report with an audit folder: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr := runMain(t, "report", auditDir, "-o", out); code != 0 {
		t.Errorf("report of an audit folder alone: exit %d, stderr %q", code, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="r1-cells"`, `id="r1-fig-audit"`, `id="r1-table-audit"`, "Output perturbation", "audit_<wbr>lower_<wbr>bound"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the audit folder's page lacks %s", want)
		}
	}
	t.Run("no arguments, audits among runs", func(t *testing.T) {
		wd := t.TempDir()
		for name, src := range map[string]string{"run": dir, "audit": auditDir} {
			if err := os.CopyFS(filepath.Join(wd, run.DefaultRoot, name), os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
		}
		t.Chdir(wd)
		code, stdout, stderr := runMain(t, "report", "-o", out)
		if code != 0 || !strings.Contains(stdout, "(2 result folder(s)") {
			t.Errorf("report: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
}

// TestReportOutputInResultDirRefused: an -o that is a file of a result
// folder, or any path in or below one (a run's, a sharded run's or an
// audit's, also through a link), is bad input naming the folder, and the
// folder is left as it was (issue 34, item 3: -o DIR/trials.jsonl replaced
// the store with the page, exit 0, and the next run exited 2).
func TestReportOutputInResultDirRefused(t *testing.T) {
	tmp := t.TempDir()
	spec := writeFile(t, filepath.Join(tmp, "cli.toml"), cliSpec)
	dir, sharded, audited := filepath.Join(tmp, "res"), filepath.Join(tmp, "sharded"), quickAuditGridCopy(t)
	for _, args := range [][]string{
		{"run", spec, "--out", dir},
		{"run", spec, "--out", sharded, "--shard", "0/2"},
	} {
		if code, _, stderr := runMain(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	all := func() string { return snapshot(t, dir) + snapshot(t, sharded) + snapshot(t, audited) }
	for _, tc := range []struct{ o, folder string }{
		{filepath.Join(dir, "trials.jsonl"), dir},
		{filepath.Join(dir, "manifest.json"), dir},
		{filepath.Join(dir, "report.html"), dir},
		{filepath.Join(dir, "figures", "r.html"), dir},
		{filepath.Join(link, "trials.jsonl"), dir},
		{filepath.Join(sharded, "shards", "shard-0-of-2.jsonl"), sharded},
		{filepath.Join(audited, "trials.jsonl"), audited},
	} {
		if err := os.MkdirAll(filepath.Dir(tc.o), 0o755); err != nil {
			t.Fatal(err)
		}
		before := all()
		code, _, stderr := runMain(t, "report", dir, "-o", tc.o)
		if want := "-o " + tc.o + " is inside the result folder " + tc.folder; code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("report -o %s: exit %d, stderr %q; want 2 and %q", tc.o, code, stderr, want)
		}
		if after := all(); after != before {
			t.Errorf("report -o %s changed the result folders", tc.o)
		}
	}
	if code, stdout, stderr := runMain(t, "report", dir, "-o", filepath.Join(tmp, "r.html")); code != 0 {
		t.Errorf("report beside the result folders: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runMain(t, "run", spec, "--out", dir); code != 0 {
		t.Errorf("rerun: exit %d\n%s", code, stderr)
	}
}

// browserChecker is prepended to the page's <head> for the browser test:
// it records console errors, script errors and failed loads from the first
// line on, and once the page (images included) has loaded writes into the
// DOM, as JSON: the images and those that did not decode (naturalWidth 0),
// the table-of-contents links and those whose target id is absent, whether
// activating a cells table's "ε target" header sorted its rows, how wide
// the page is against the window, the tables wider than their box (and
// whether the page laid them out itself, outside a .table-block of a
// result's tables/*.md, and whether their first column stays in view), per
// folder the claim rows shown in its claims section, whether that
// section comes first and whether it says the folder has none, where the
// first content (main's first section) starts, and how wide the page is
// with its folded sections (the claims' evidence) open.
const browserChecker = `<script>
(function () {
  var errors = [];
  var orig = console.error;
  console.error = function () { errors.push("console.error: " + Array.prototype.join.call(arguments, " ")); return orig.apply(console, arguments); };
  window.addEventListener("error", function (e) {
    var t = e.target;
    if (t && t !== window && (t.src || t.href)) { errors.push("failed to load " + String(t.src || t.href).slice(0, 60)); }
    else { errors.push("error: " + e.message); }
  }, true);
  window.addEventListener("unhandledrejection", function (e) { errors.push("unhandled rejection: " + e.reason); });
  function visible(el) { return !!el && el.getClientRects().length > 0 && el.offsetHeight > 0; }
  window.addEventListener("load", function () {
    var r = {errors: errors, images: 0, broken: [], scaled: 0, unscaled: [], links: 0, unresolved: [], sorted: false, buttons: 0,
      scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
      overflowing: [], folders: [], contentTop: -1, windowHeight: window.innerHeight, unfolded: 0, unfoldedScrollWidth: 0};
    Array.prototype.forEach.call(document.images, function (img) {
      r.images++;
      if (!img.complete || img.naturalWidth === 0) { r.broken.push(img.alt); }
      if (img.classList.contains("scaled")) {
        var want = Math.min(parseFloat(img.style.getPropertyValue("--w")), img.parentElement.clientWidth);
        if (!(Math.abs(img.clientWidth - want) <= 3)) { r.unscaled.push(img.alt + ": " + img.clientWidth + " px, want " + want); }
        r.scaled++;
      }
    });
    Array.prototype.forEach.call(document.querySelectorAll("nav#toc a, a.skip"), function (a) {
      r.links++;
      var id = decodeURIComponent(a.getAttribute("href").replace(/^#/, ""));
      if (!document.getElementById(id)) { r.unresolved.push(id); }
    });
    Array.prototype.forEach.call(document.querySelectorAll("table"), function (table) {
      var box = table.parentElement;
      if (!visible(table) || table.getBoundingClientRect().width <= box.clientWidth + 1) { return; }
      var first = table.rows[0] && table.rows[0].cells[0];
      r.overflowing.push({table: (table.id || (table.closest("[id]") || {}).id || "?") + " " + Math.round(table.getBoundingClientRect().width) + " px in " + box.clientWidth,
        own: !table.closest(".table-block"), sticky: !!first && getComputedStyle(first).position === "sticky"});
    });
    Array.prototype.forEach.call(document.querySelectorAll("section.folder"), function (f) {
      var c = document.getElementById(f.id + "-claims"), rows = 0;
      if (c) { Array.prototype.forEach.call(c.querySelectorAll("tr.claim"), function (tr) { if (visible(tr)) { rows++; } }); }
      var firstSection = f.querySelector("section");
      r.folders.push({id: f.id, claims: rows, first: !!c && firstSection === c, none: !!c && /No claims\.json in this folder/.test(c.textContent)});
    });
    var first = document.querySelector("main section");
    if (first) { r.contentTop = first.getBoundingClientRect().top; }
    // The claims' evidence, unfolded, still fits the page's width.
    Array.prototype.forEach.call(document.querySelectorAll("main details"), function (d) { d.open = true; r.unfolded++; });
    r.unfoldedScrollWidth = document.documentElement.scrollWidth;
    Array.prototype.forEach.call(document.querySelectorAll("main details"), function (d) { d.open = false; });
    var tables = document.querySelectorAll("table.sortable");
    Array.prototype.forEach.call(tables, function (table) {
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
        var b = th.querySelector("button");
        if (b && b.tabIndex >= 0) { r.buttons++; }
      });
    });
    Array.prototype.some.call(tables, function (table) {
      var ths = table.tHead.rows[0].cells, col = -1;
      for (var i = 0; i < ths.length; i++) {
        if (ths[i].textContent.trim() === "ε target") { col = i; }
      }
      if (col < 0) { return false; }
      ths[col].querySelector("button").click();
      var prev = -Infinity, ok = table.tBodies[0].rows.length > 1;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var v = row.cells[col].getAttribute("data-sort");
        var x = v === "Infinity" ? Infinity : Number(v);
        if (!(x >= prev)) { ok = false; }
        prev = x;
      });
      r.sorted = ok && ths[col].getAttribute("aria-sort") === "ascending";
      return true;
    });
    var pre = document.createElement("pre");
    pre.id = "dplab-check";
    pre.textContent = JSON.stringify(r);
    document.body.appendChild(pre);
  });
}());
</script>
`

// browserCheck is what browserChecker reports.
type browserCheck struct {
	Errors, Broken, Unresolved, Unscaled []string
	Images, Scaled, Links, Buttons       int
	Sorted                               bool
	ScrollWidth, ClientWidth             int
	Overflowing                          []struct {
		Table       string
		Own, Sticky bool
	}
	Folders []struct {
		ID     string
		Claims int
		First  bool
		None   bool // the claims section says the folder has none
	}
	ContentTop, WindowHeight float64
	// Unfolded is the number of folded sections (the claims' evidence)
	// opened, and UnfoldedScrollWidth the page's width with them open.
	Unfolded, UnfoldedScrollWidth int
}

// checkInBrowser opens page with browserChecker in headless chromium, in a
// window width px wide, and returns what the checker found.
func checkInBrowser(t *testing.T, bin, page string, width int) browserCheck {
	t.Helper()
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	checked := strings.TrimSuffix(page, ".html") + fmt.Sprintf("-checked-%d.html", width)
	withChecker := strings.Replace(string(src), "<head>\n", "<head>\n"+browserChecker, 1)
	if withChecker == string(src) {
		t.Fatal("no <head> to inject the checker into")
	}
	if err := os.WriteFile(checked, []byte(withChecker), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := chromium(t, bin, filepath.Join(filepath.Dir(page), fmt.Sprintf("profile-%d", width)), checked,
		"--virtual-time-budget=15000", fmt.Sprintf("--window-size=%d,1000", width), "--dump-dom")
	m := regexp.MustCompile(`(?s)<pre id="dplab-check">(.*?)</pre>`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the checker wrote no result; the DOM ends %q", tail(dom, 300))
	}
	var r browserCheck
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// claimBlocks counts the [[claim]] blocks of the spec file path: the claims
// its run's folder must show.
func claimBlocks(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return len(regexp.MustCompile(`(?m)^\[\[claim\]\]\s*$`).FindAll(b, -1))
}

// findChromium returns the headless browser to use: $DPLAB_CHROMIUM, else
// chromium (Debian's package, which .ci/run installs) or chromium-browser.
// Without one the test skips, unless DPLAB_REQUIRE_CHROMIUM=1 (set by
// .ci/run when its install succeeded), when it fails.
func findChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("DPLAB_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("DPLAB_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("DPLAB_REQUIRE_CHROMIUM=1 but no chromium on PATH")
	}
	t.Skip("no chromium on PATH: the headless-browser check of 'dplab report' needs Debian's chromium (.ci/run installs it with apt-get install chromium; as root: apt-get update && apt-get install -y chromium)")
	return ""
}

// chromium runs the browser headless on a file with extra flags and returns
// its standard output.
func chromium(t *testing.T, bin, profile, page string, flags ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--disable-extensions", "--disable-background-networking", "--user-data-dir=" + profile}, flags...)
	args = append(args, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// TestReportInBrowser builds a report from small --quick runs (an audit
// grid's among them) and opens it in headless chromium: every image decodes
// (naturalWidth > 0) and shows at its screen width (1.5 times its print
// width, at most the page's), no console or script error and no failed
// load, every table-of-contents link resolves to an element, a cells table
// sorts from its header buttons, and a screenshot is not blank (its
// luminance varies and a share of its pixels is not white). At 1280 px the
// page does not scroll sideways, every table the page lays out itself fits
// its box (the summary used to be reachable only by scrolling it), and a
// result's own table wider than the page keeps its first column in view; at
// 500 px (headless chromium's narrowest window) the page does not scroll
// sideways either and every table wider than its box keeps its first column
// in view. The page opens on content (its first section starts in the top
// half of the window, not below a screen of contents), and each folder's
// claims are shown, first in its section: one row per [[claim]] block of
// its spec (rgm_theory's, and rgm_fig1's with DPLAB_DATA, as their runs'
// render wrote them), and "No claims.json" for a folder whose spec states
// none. Run by `make test-browser`
// (.ci/run); skipped under -short.
func TestReportInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("headless-browser check of 'dplab report': run by make test-browser")
	}
	bin := findChromium(t)
	tmp := t.TempDir()
	// rgm_theory states claims on curves alone (no data); rgm_fig1 on
	// ijcnn1's trials.
	specs := []string{"experiments/quickstart.toml", "experiments/rgm_theory.toml"}
	if os.Getenv("DPLAB_DATA") != "" {
		specs = append(specs, "experiments/compare_regression.toml", "experiments/rgm_fig1.toml")
	}
	var dirs []string
	var wantClaims []int // per folder: its spec's [[claim]] blocks
	for _, s := range specs {
		dirs = append(dirs, quickRun(t, s))
		wantClaims = append(wantClaims, claimBlocks(t, s))
	}
	auditDir := filepath.Join(tmp, "audit_grid")
	if code, _, stderr := runMain(t, "run", "experiments/audits/audit_grid.toml", "--quick", "-j", "2", "--out", auditDir); code != 0 {
		t.Fatalf("run audit_grid --quick: exit %d\n%s", code, stderr)
	}
	dirs = append(dirs, auditDir)
	wantClaims = append(wantClaims, 0)
	page := filepath.Join(tmp, "report.html")
	if code, _, stderr := runMain(t, append([]string{"report", "-o", page}, dirs...)...); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	r := checkInBrowser(t, bin, page, 1280)
	nFigs := strings.Count(string(src), "<img ")
	t.Logf("browser at 1280 px: %d images, %d TOC links, %d sort buttons, sorted %v, %d errors, page %d px in a %d px window (%d px with its %d folded sections open), %d tables wider than their box, content at %.0f px",
		r.Images, r.Links, r.Buttons, r.Sorted, len(r.Errors), r.ScrollWidth, r.ClientWidth, r.UnfoldedScrollWidth, r.Unfolded, len(r.Overflowing), r.ContentTop)
	if len(r.Errors) > 0 {
		t.Errorf("console/script/load errors: %q", r.Errors)
	}
	if r.Images != nFigs || nFigs == 0 || len(r.Broken) > 0 {
		t.Errorf("%d images of %d on the page; not decoded: %q", r.Images, nFigs, r.Broken)
	}
	// Every figure is an SVG, shown at 1.5 times its print width or the
	// page's width, whichever is less.
	if r.Scaled != nFigs || len(r.Unscaled) > 0 {
		t.Errorf("%d of %d images scaled for the screen; at the wrong width: %q", r.Scaled, nFigs, r.Unscaled)
	}
	if r.Links < 1+6*len(dirs) || len(r.Unresolved) > 0 {
		t.Errorf("%d TOC links; unresolved: %q", r.Links, r.Unresolved)
	}
	if !r.Sorted || r.Buttons == 0 {
		t.Errorf("cells sort: sorted %v, %d focusable header buttons", r.Sorted, r.Buttons)
	}
	checkFits(t, r, 1280, true)
	if len(r.Folders) != len(dirs) {
		t.Errorf("%d folder sections for %d folders", len(r.Folders), len(dirs))
	}
	withClaims, without := 0, 0
	for i, f := range r.Folders[:min(len(r.Folders), len(dirs))] {
		want := wantClaims[i]
		switch {
		case want > 0:
			withClaims++
			if f.Claims != want || !f.First || f.None {
				t.Errorf("folder %s (%s): %d claim rows shown (first in its section: %v, says none: %v), want its spec's %d [[claim]] blocks first",
					f.ID, dirs[i], f.Claims, f.First, f.None, want)
			}
		default:
			without++
			if f.Claims != 0 || !f.None {
				t.Errorf("folder %s (%s), whose spec states no claim: %d claim rows, says it has none: %v", f.ID, dirs[i], f.Claims, f.None)
			}
		}
	}
	if withClaims == 0 || without == 0 {
		t.Errorf("%d folders with claims, %d without: the check of the claims shown needs both", withClaims, without)
	}
	narrow := checkInBrowser(t, bin, page, 500) // headless chromium's narrowest window
	t.Logf("browser at 500 px: page %d px in a %d px window, %d tables wider than their box, content at %.0f px",
		narrow.ScrollWidth, narrow.ClientWidth, len(narrow.Overflowing), narrow.ContentTop)
	checkFits(t, narrow, 500, false)

	shot := filepath.Join(tmp, "shot.png")
	chromium(t, bin, filepath.Join(tmp, "profile2"), page, "--window-size=1280,1600", "--screenshot="+shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	var sum, sum2, dark float64
	n := float64(b.Dx() * b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			l := (0.299*float64(cr) + 0.587*float64(cg) + 0.114*float64(cb)) / 257 // 0–255
			sum += l
			sum2 += l * l
			if l < 200 {
				dark++
			}
		}
	}
	mean := sum / n
	sd := math.Sqrt(math.Max(sum2/n-mean*mean, 0))
	t.Logf("screenshot %dx%d: luminance mean %.1f, sd %.1f, %.2f%% of pixels below 200", b.Dx(), b.Dy(), mean, sd, 100*dark/n)
	if b.Dx() < 800 || sd < 10 || dark/n < 0.005 {
		t.Errorf("the screenshot looks blank: %dx%d, luminance sd %.1f, %.3f%% dark pixels", b.Dx(), b.Dy(), sd, 100*dark/n)
	}
}

// checkFits fails t when the page r was checked at width px wide scrolls
// sideways (also with its folded sections open), does not open on content (main's first section in the
// window's top half), or shows a table wider than its box whose first column scrolls
// out of view; with ownFit, also when a table the page lays out itself
// (not a result's tables/*.md) is wider than its box.
func checkFits(t *testing.T, r browserCheck, width int, ownFit bool) {
	t.Helper()
	if r.ScrollWidth > r.ClientWidth {
		t.Errorf("at %d px the page scrolls sideways: %d px wide in a %d px window", width, r.ScrollWidth, r.ClientWidth)
	}
	if r.UnfoldedScrollWidth > r.ClientWidth {
		t.Errorf("at %d px, with the %d folded sections (the claims' evidence) open, the page scrolls sideways: %d px wide in a %d px window", width, r.Unfolded, r.UnfoldedScrollWidth, r.ClientWidth)
	}
	if !(r.ContentTop >= 0 && r.ContentTop < r.WindowHeight/2) {
		t.Errorf("at %d px the page does not open on content: its first section starts at %.0f px of a %.0f px window (-1: none)", width, r.ContentTop, r.WindowHeight)
	}
	for _, o := range r.Overflowing {
		if ownFit && o.Own {
			t.Errorf("at %d px the page's own table %s is wider than its box", width, o.Table)
		}
		if !o.Sticky {
			t.Errorf("at %d px the table %s is wider than its box and its first column scrolls out of view", width, o.Table)
		}
	}
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return fmt.Sprint(string(b))
}
