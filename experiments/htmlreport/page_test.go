package htmlreport

import (
	"encoding/json"
	stdhtml "html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dplab/dplab/experiments/internal/spectest"
	"github.com/dplab/dplab/results"
)

// buildOne builds the page of the result folders dirs or fails t; it
// returns the page and the warnings Build passed on.
func buildOne(t *testing.T, dirs ...string) (string, []string) {
	t.Helper()
	var warns []string
	page, err := Build(dirs, Options{Warn: func(w string) { warns = append(warns, w) }})
	if err != nil {
		t.Fatal(err)
	}
	return string(page), warns
}

// section returns the element of the page with the given id, up to the
// next element at its level: from `id="ID"` to the next `<section` (or
// the end) at the same depth, counted by opening and closing tags.
func section(t *testing.T, page, id string) string {
	t.Helper()
	at := strings.Index(page, `id="`+id+`"`)
	if at < 0 {
		t.Fatalf("no element with id %q", id)
	}
	start := strings.LastIndex(page[:at], "<")
	tag := regexp.MustCompile(`^<([a-z]+)`).FindStringSubmatch(page[start:])[1]
	depth := 0
	re := regexp.MustCompile(`<(/?)` + tag + `[\s>]`)
	for _, m := range re.FindAllStringSubmatchIndex(page[start:], -1) {
		if page[start+m[2]:start+m[3]] == "/" {
			depth--
		} else {
			depth++
		}
		if depth == 0 {
			return page[start : start+m[1]]
		}
	}
	t.Fatalf("element %q is not closed", id)
	return ""
}

// claimsJSON is a claims file as the claims check writes it (see
// readClaims): HTML in the paper's words, a point with a key the others
// lack, a point that is not an object, every verdict class.
const claimsJSON = `{"claims": [
 {"id": "c-partly", "paper": "A <b>beats</b> B at every ε", "where": "Fig. 1, p. 6", "verdict": "holds at 1 of 2",
  "points": [{"at": "ε = 0.1", "a": "0.06 ± 0.01", "b": "0.07 ± 0.01", "verdict": "tie"}, {"at": "ε = 10", "a": 0.00070001, "b": 9e-07, "verdict": "holds", "note": "x"}]},
 {"id": "c-holds", "paper": "ratio in [1, 2]", "where": "§4", "verdict": "holds", "points": ["ratio 1.09"]},
 {"id": "c-tie", "paper": "C beats D", "where": "Table 3", "verdict": "tie", "points": []},
 {"id": "c-no", "paper": "E is 10× F", "where": "Table 4", "verdict": "contradicted", "points": []},
 {"id": "c-notrun", "paper": "on Gisette", "where": "Fig. 4", "verdict": "not run: gisette missing", "points": []}
]}`

// TestClaimsShownFirst: a folder's claims.json is shown at the top of its
// section, before its figures, one row per claim in the file's order, each
// with its verdict (coloured by class), the paper's words (escaped) and
// where they are, and its points as a table whose columns are the points'
// keys in the file's order ("—" for a key a point lacks); the overview
// counts the verdicts. A folder without claims.json says so; a malformed
// one is a warning naming the file and line, and the page is still built.
func TestClaimsShownFirst(t *testing.T) {
	dir := makeResultDir(t)
	if err := os.WriteFile(filepath.Join(dir, "claims.json"), []byte(claimsJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	page, warns := buildOne(t, dir)
	if len(warns) > 0 {
		t.Errorf("warnings: %q", warns)
	}
	folder := section(t, page, "r1")
	claims := section(t, page, "r1-claims")
	if first := regexp.MustCompile(`<section [^>]*id="([^"]+)"`).FindAllStringSubmatch(folder, 3); len(first) < 2 || first[1][1] != "r1-claims" {
		t.Errorf("the folder's first section is not its claims: %v", first)
	}
	var doc struct {
		Claims []struct{ ID, Paper, Where, Verdict string }
	}
	if err := json.Unmarshal([]byte(claimsJSON), &doc); err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`(?s)<tr class="claim">(.*?)</tr>\n`).FindAllStringSubmatch(claims, -1)
	if len(rows) != len(doc.Claims) {
		t.Fatalf("%d claim rows for %d claims", len(rows), len(doc.Claims))
	}
	classes := []string{"partly", "holds", "tie", "contradicted", "notrun"}
	for i, c := range doc.Claims {
		row := rows[i][1]
		for _, want := range []string{
			`<span class="verdict v-` + classes[i] + `">` + stdhtml.EscapeString(c.Verdict) + `</span>`,
			">" + stdhtml.EscapeString(c.Paper), ">" + stdhtml.EscapeString(c.Where) + "<", ">" + c.ID + "<",
		} {
			if !strings.Contains(row, want) {
				t.Errorf("claim %s: row lacks %s\n%s", c.ID, want, row)
			}
		}
	}
	if strings.Contains(claims, "<b>beats") {
		t.Error("the paper's words are not escaped")
	}
	ev := regexp.MustCompile(`(?s)<table class="evidence">(.*?)</table>`).FindAllStringSubmatch(rows[0][1], -1)
	if len(ev) != 1 {
		t.Fatalf("claim 1: %d evidence tables", len(ev))
	}
	cells := func(s, tag string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<`+tag+`[^>]*>(.*?)</`+tag+`>`).FindAllStringSubmatch(s, -1) {
			out = append(out, stdhtml.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[1], "")))
		}
		return out
	}
	if got, want := strings.Join(cells(ev[0][1], "th"), "|"), "at|a|b|verdict|note"; got != want {
		t.Errorf("evidence columns %q, want %q", got, want)
	}
	if got, want := strings.Join(cells(ev[0][1], "td"), "|"), "ε = 0.1|0.06 ± 0.01|0.07 ± 0.01|tie|—|ε = 10|0.00070001|9×10⁻⁷|holds|x"; got != want {
		t.Errorf("evidence cells %q, want %q", got, want)
	}
	if got := strings.Join(cells(rows[1][1], "td"), "|"); !strings.Contains(got, "|ratio 1.09") {
		t.Errorf("a point that is not an object: cells %q", got)
	}
	if want := strings.ReplaceAll("holds_1 · holds_partly_1 · tie_1 · contradicted_1 · not_run_1", "_", "\u00a0"); !strings.Contains(section(t, page, "overview"), want) || !strings.Contains(claims, want) {
		t.Errorf("no tally %q", want)
	}

	if err := os.WriteFile(filepath.Join(dir, "claims.json"), []byte("{\n \"claims\": [\n  {\"id\": \"x\",}\n]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	page, warns = buildOne(t, dir)
	want := filepath.Join(dir, "claims.json") + ":3: "
	if len(warns) != 1 || !strings.Contains(warns[0], want) || !strings.Contains(page, stdhtml.EscapeString(want)) {
		t.Errorf("malformed claims.json: warnings %q, want one naming %s, shown on the page", warns, want)
	}
	if err := os.Remove(filepath.Join(dir, "claims.json")); err != nil {
		t.Fatal(err)
	}
	page, _ = buildOne(t, dir)
	if c := section(t, page, "r1-claims"); !strings.Contains(c, "No claims.json") || strings.Contains(c, `class="claim"`) {
		t.Errorf("a folder without claims.json:\n%s", c)
	}
}

// TestCaptionFilesShown: a figure's and a table's caption file
// (NAME.caption.md) is shown under it, inside its figure or table block,
// rendered (bold, a list) and escaped; a caption file is not read as a
// table of its own.
func TestCaptionFilesShown(t *testing.T) {
	dir := makeResultDir(t)
	before, _ := buildOne(t, dir)
	nTables := strings.Count(before, `class="table-block"`)
	figCap := "**Test MSE against ε.** Bands: 95% CIs.\n\n- <script>alert(1)</script>\n- ε does not cover *x*.\n"
	tabCap := "Test MSE; `public n` & more.\n"
	for path, text := range map[string]string{
		filepath.Join(dir, "figures", "mse.caption.md"): figCap,
		filepath.Join(dir, "tables", "mse.caption.md"):  tabCap,
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page, _ := buildOne(t, dir)
	if n := strings.Count(page, `class="table-block"`); n != nTables || strings.Contains(page, `id="r1-table-mse.caption"`) {
		t.Errorf("%d tables with the caption files, %d without: a caption file was read as a table", n, nTables)
	}
	fig := section(t, page, "r1-fig-mse")
	for _, want := range []string{"<strong>Test MSE against ε.</strong> Bands: 95% CIs.", "<li>&lt;script&gt;alert(1)&lt;/script&gt;</li>", "<li>ε does not cover <em>x</em>.</li>"} {
		if !strings.Contains(fig, want) {
			t.Errorf("figure block lacks %s:\n%s", want, fig)
		}
	}
	if tab := section(t, page, "r1-table-mse"); !strings.Contains(tab, "Test MSE; <code>public n</code> &amp; more.") {
		t.Errorf("table block lacks its caption:\n%s", tab)
	}
	if strings.Contains(page, "<script>alert") {
		t.Error("a caption's HTML reached the page unescaped")
	}
}

// TestNonPrivateRowsShowDash: for a non-private mechanism (ridge) the
// cells and the ledger show "—" for the fields that do not apply (ε
// target, δ, accountant, relation, α*, ε per component), though its
// records store an accountant and a relation, and ∞ for its ε spent; a
// private mechanism's row shows them.
func TestNonPrivateRowsShowDash(t *testing.T) {
	dir := makeResultDir(t)
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Label == "Ridge" && (r.Privacy.Accountant == "" || r.Privacy.Relation == "") {
			t.Fatalf("the ridge records store no accountant or relation: the test's premise is off")
		}
	}
	page, _ := buildOne(t, dir)
	text := func(row, tag string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`(?s)<`+tag+`[^>]*>(.*?)</`+tag+`>`).FindAllStringSubmatch(row, -1) {
			out = append(out, strings.TrimSpace(stdhtml.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[1], " "))))
		}
		return out
	}
	for _, tc := range []struct {
		id    string
		dash  []string // the columns that do not apply
		spent string
	}{
		{"r1-ledger", []string{"ε target", "accountant, δ, α* (mean)", "relation", "ε per component"}, "ε spent (max)"},
		{"r1-cells", []string{"ε target", "δ", "accountant"}, "ε spent (max)"},
	} {
		body := section(t, page, tc.id)
		header := text(regexp.MustCompile(`(?s)<thead>.*?</thead>`).FindString(body), "th")
		var ridge, adassp []string
		for _, m := range regexp.MustCompile(`(?s)<tr>(.*?)</tr>`).FindAllStringSubmatch(body, -1) {
			cells := text(m[1], "td")
			switch {
			case len(cells) != len(header):
			case cells[1] == "Ridge":
				ridge = cells
			case cells[1] == "AdaSSP":
				adassp = cells
			}
		}
		if ridge == nil || adassp == nil {
			t.Fatalf("%s: no Ridge or AdaSSP row under %q", tc.id, header)
		}
		col := func(name string) int {
			for i, h := range header {
				if strings.ReplaceAll(h, "\u00ad", "") == name {
					return i
				}
			}
			t.Errorf("%s: no column %q in %q", tc.id, name, header)
			return -1
		}
		for _, name := range tc.dash {
			c := col(name)
			if c < 0 {
				continue
			}
			if ridge[c] != "—" {
				t.Errorf("%s: Ridge's %s is %q, want —", tc.id, name, ridge[c])
			}
			if adassp[c] == "—" {
				t.Errorf("%s: AdaSSP's %s is —", tc.id, name)
			}
		}
		if c := col(tc.spent); c >= 0 && ridge[c] != "∞" {
			t.Errorf("%s: Ridge's ε spent is %q, want ∞", tc.id, ridge[c])
		}
	}
}

// auditSpec is an audit spec's copy with HTML in a label; auditStore holds
// two of its audits by hand, the second's lower bound above its claim, and
// a torn last line.
const (
	auditSpec = `name = "aud"
title = "Audit <i>grid</i>"
seed = 1
delta = 1e-5
trials = 100
epsilon = [1, 2]
[[mechanism]]
name = "gaussian"
label = "<script>G</script>"
[[mechanism]]
name = "gaussian"
label = "Gauss B"
params = { bound = 2 }
`
	auditStore = `{"key":"k2","mechanism":"gaussian","label":"Gauss B","relation":"add_remove","pair":"pair of B","target_epsilon":1,"claimed_epsilon":1,"delta":1e-5,"lower_bound":1.25,"confidence":0.95,"trials":100,"seed":1,"test":{}}
{"key":"k1","mechanism":"gaussian","label":"<script>G</script>","relation":"add_remove","pair":"pair of G","target_epsilon":2,"claimed_epsilon":2,"delta":1e-5,"lower_bound":0.5,"confidence":0.95,"trials":100,"seed":1,"test":{}}
{"key":"k3","mechanism":"gaussian","label":"<script>G</script>","relation":"add_remove","pair":"pair of G","target_epsilon":1,"claimed_epsilon":1,"delta":1e-5,"lower_bound":0,"confidence":0.95,"trials":100,"seed":1,"test":{}}
{"key":"torn","mech`
)

// TestAuditFolderShown: an audit spec's folder (audits.jsonl, no
// trials.jsonl) is shown, not refused: its title from its spec, one row per
// stored audit in the spec's order of mechanisms and then ε, VIOLATION
// where the lower bound exceeds the claimed ε and "not refuted" elsewhere,
// each pair once, its figure and table; a torn last line is a warning;
// labels and titles are escaped.
func TestAuditFolderShown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "aud")
	for name, text := range map[string]string{"spec.toml": auditSpec, "audits.jsonl": auditStore,
		"figures/audit.svg": `<svg xmlns="http://www.w3.org/2000/svg" width="300pt" height="200pt"></svg>`,
		"tables/audit.md":   "**Audit**\n\n| target ε | G |\n|---|---:|\n| 1 | 0 |\n"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page, warns := buildOne(t, dir)
	if len(warns) != 1 || !strings.Contains(warns[0], "torn last line") {
		t.Errorf("warnings %q, want one about the torn last line", warns)
	}
	if !strings.Contains(page, "aud — Audit &lt;i&gt;grid&lt;/i&gt;") {
		t.Error("no escaped title from the audit spec")
	}
	body := section(t, page, "r1-audits")
	var got []string
	for _, m := range regexp.MustCompile(`(?s)<tr><td class="text">([^<]*)</td><td data-sort="([^"]*)".*?<td class="text">(.*?)</td></tr>`).FindAllStringSubmatch(body, -1) {
		got = append(got, stdhtml.UnescapeString(m[1])+" ε="+m[2]+" "+regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[3], ""))
	}
	want := []string{"<script>G</script> ε=1 not refuted", "<script>G</script> ε=2 not refuted", "Gauss B ε=1 VIOLATION"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("audit rows %q, want %q", got, want)
	}
	if n := strings.Count(body, "pair of G"); n != 1 {
		t.Errorf("the pair of G is listed %d times, want once", n)
	}
	for _, id := range []string{`id="r1-fig-audit"`, `id="r1-table-audit"`, `id="r1-spec"`} {
		if !strings.Contains(page, id) {
			t.Errorf("page lacks %s", id)
		}
	}
	if strings.Contains(page, "<script>G") || strings.Contains(page, "<i>grid") {
		t.Error("an audit's label or title reached the page unescaped")
	}
}

// TestBuildEscapes: a mechanism label, a dataset label and a title holding
// HTML and script reach the page escaped, in every place they are shown
// (overview, cells, ledger, tables, spec); the page's only script is its
// own.
func TestBuildEscapes(t *testing.T) {
	src := strings.NewReplacer(`label = "AdaSSP"`, `label = "<script>alert('m')</script>"`,
		`label = "Lin"`, `label = "<img src=x onerror=alert(1)>"`,
		`name = "t"`, "name = \"t\"\ntitle = \"</title><script>alert(2)</script>\"").Replace(spectest.Valid)
	dir := runSpec(t, src)
	page, _ := buildOne(t, dir)
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d script elements, want the page's one", n)
	}
	for _, bad := range []string{"<img src=x", "</title><script>"} {
		if strings.Contains(page, bad) {
			t.Errorf("%q reached the page unescaped", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(&#39;m&#39;)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;", "&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;"} {
		if strings.Count(page, want) < 2 {
			t.Errorf("%s shown escaped fewer than twice", want)
		}
	}
}

// TestNum: numbers keep 4 significant digits, a power of ten is written
// 10⁻⁶ or 7.437×10⁻⁷ (strconv's 1e-06 wrapped as "1e-/06"), and the
// special values read as words.
func TestNum(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{1e-6, "10⁻⁶"}, {7.4372e-7, "7.437×10⁻⁷"}, {-1e-5, "-10⁻⁵"}, {3.2e10, "3.2×10¹⁰"}, {1e4, "10⁴"},
		{0.05564, "0.05564"}, {1234, "1234"}, {12345, "1.234×10⁴"}, {0, "0"},
		{math.Inf(1), "∞"}, {math.Inf(-1), "−∞"}, {math.NaN(), "—"},
	} {
		if got := num(tc.x); got != tc.want {
			t.Errorf("num(%g) = %q, want %q", tc.x, got, tc.want)
		}
	}
	if got, want := string(statHTML(results.Stat{Mean: 0.0008172, CIHalf: 9.8e-5})), `<span class="n">0.0008172</span> <span class="n">± 9.8×10⁻⁵</span>`; got != want {
		t.Errorf("statHTML = %s, want %s", got, want)
	}
}

// TestCellHTML: in a table read from tables/*.md, a word holding a digit
// never breaks ("1e-06"), "± x" stays with its number, other words break
// freely, and everything is escaped.
func TestCellHTML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1e-06", `<span class="n">1e-06</span>`},
		{"0.0689 ± 0.0076 †", `<span class="n">0.0689</span> <span class="n">± 0.0076</span> †`},
		{"AdaSSP (RDP-calibrated), ε = 0.1", `AdaSSP (RDP-calibrated), ε = <span class="n">0.1</span>`},
		{"<b>x</b> & 2<3", `&lt;b&gt;x&lt;/b&gt; &amp; <span class="n">2&lt;3</span>`},
		{"±", "±"},
	} {
		if got := string(cellHTML(tc.in)); got != tc.want {
			t.Errorf("cellHTML(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestMarkdownHTML: a caption file's paragraphs, lists (with an indented
// continuation line), bold, italic and code spans; everything else is
// escaped text, "*" in arithmetic and an unclosed backtick included.
func TestMarkdownHTML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\nb\n\nc", "<p>a b</p>\n<p>c</p>\n"},
		{"**Bold** and *it* and `c<d`", "<p><strong>Bold</strong> and <em>it</em> and <code>c&lt;d</code></p>\n"},
		{"Intro:\n- one\n  more\n* two\nafter", "<p>Intro:</p>\n<ul>\n<li>one more</li>\n<li>two</li>\n</ul>\n<p>after</p>\n"},
		{"text\n## Title\n2 * 3 = 6, a*b*c, `open", "<p>text</p>\n<p><strong>Title</strong></p>\n<p>2 * 3 = 6, a*b*c, `open</p>\n"},
		{"<script>alert(1)</script> & \"q\"", "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;q&#34;</p>\n"},
		{"", ""},
	} {
		if got := string(markdownHTML(tc.in)); got != tc.want {
			t.Errorf("markdownHTML(%q) =\n%q\nwant\n%q", tc.in, got, tc.want)
		}
	}
}
