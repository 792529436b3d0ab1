package htmlreport

import (
	"fmt"
	stdhtml "html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/report"
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

// testClaims is a claims.json as the claims engine writes it (a
// report.Claims, saved with its own JSON method): every verdict, HTML in
// the paper's words, a label and a region, a point without b, a point not
// run, an unbounded interval and a --quick run's.
func testClaims() *report.Claims {
	nan := results.Float(math.NaN())
	side := func(label string, mean, half float64, n int) *report.ClaimSide {
		return &report.ClaimSide{Label: label, Mean: results.Float(mean), Half: results.Float(half), N: n}
	}
	return &report.Claims{Version: report.ClaimsVersion, Spec: "t", Title: "T", Quick: true, CI: "t", Claims: []report.Claim{
		{ID: "c-partly", Quote: "A <b>beats</b> B at every ε", Where: "Fig. 1, p. 6", Check: "better",
			Statement: "AdaSSP lower than Ridge in test_mse", Paper: "paper gives no value",
			Verdict: report.Partly, Summary: "holds at 1 of 2 points", Held: 1, Tied: 1,
			Points: []report.ClaimPoint{
				{Point: "ε = 0.5", Outcome: report.Tie, A: side("AdaSSP", 0.06, 0.01, 3), B: side("Ridge <i>", 0.07, 0.01, 3),
					Estimate: -0.01, Low: -0.03, High: 0.01, Expect: "< 0", Paper: nan},
				{Point: "ε = 2", Outcome: report.Holds, A: side("AdaSSP", 7.4372e-7, 1e-8, 3), B: side("Ridge <i>", 0.07, 0.01, 3),
					Estimate: -0.07, Low: -0.08, High: -0.06, Expect: "< 0", Paper: nan},
			}},
		{ID: "c-holds", Quote: "ratio in [1, 2]", Where: "§4", Check: "value", Statement: "AdaSSP's test_mse",
			Reading: "“close to” read as within a factor 2.", Paper: "1.5, within a factor 2",
			Verdict: report.Holds, Summary: "holds", Held: 1,
			Points: []report.ClaimPoint{{Point: "ε = 2", Outcome: report.Holds, A: side("AdaSSP", 1.09, math.NaN(), 1),
				Estimate: 1.09, Low: nan, High: nan, Expect: "[0.75, 3]", Paper: 1.5}}},
		{ID: "c-tie", Quote: "C beats D", Where: "Table 3", Check: "better", Statement: "C lower than D", Paper: "paper gives no value",
			Verdict: report.Tie, Summary: "tie", Tied: 1,
			Points: []report.ClaimPoint{{Point: "ε = 1", Outcome: report.Tie, A: side("C", 1, 0.5, 3), B: side("D", 1.2, 0.5, 3),
				Estimate: -0.2, Low: -1.2, High: 0.8, Expect: "< 0", Paper: nan}}},
		{ID: "c-no", Quote: "E is 10× F", Where: "Table 4", Check: "ratio", Statement: "E / F", Paper: "10, within 5%",
			Verdict: report.Contradicted, Summary: "contradicted at 1 of 1 points", Contradicting: 1,
			Points: []report.ClaimPoint{{Point: "ε = 1", Outcome: report.Contradicted, A: side("E", 2, 0.1, 3), B: side("F", 1, 0.1, 3),
				Estimate: 2, Low: 1.7, High: 2.3, Expect: "[9.5, 10.5]", Paper: 10}}},
		{ID: "c-notrun", Quote: "on Gisette", Where: "Fig. 4", Check: "better", Statement: "G lower than H", Paper: "paper gives no value",
			Verdict: report.NotRun, Summary: "not run: gisette missing", NotRun: 1, Why: "gisette missing",
			Points: []report.ClaimPoint{{Point: "dataset = Gisette", Outcome: report.NotRun, Why: "no stored trial",
				Estimate: nan, Low: nan, High: nan, Expect: "< 0", Paper: nan}}},
	}}
}

// writeClaims writes c as dir's claims.json with its own JSON method.
func writeClaims(t *testing.T, dir string, c *report.Claims) {
	t.Helper()
	b, err := c.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, report.ClaimsJSON), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tagText returns the text of each <tag> element of s, markup removed and
// entities unescaped, spaces collapsed.
func tagText(s, tag string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?s)<`+tag+`(?:\s[^>]*)?>(.*?)</`+tag+`>`).FindAllStringSubmatch(s, -1) {
		text := stdhtml.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[1], ""))
		out = append(out, strings.Join(strings.Fields(text), " "))
	}
	return out
}

// claimRows returns the claims table's rows in a claims section: each
// claim's row with the row of its evidence, when it has one.
func claimRows(section string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?s)<tr class="claim">(.*?)</tr>\n(?:<tr class="evidence-row">(.*?)</tr>\n)?`).FindAllStringSubmatch(section, -1) {
		out = append(out, m[1]+m[2])
	}
	return out
}

// TestClaimsShownFirst: a folder's claims.json (report.Claims, read with
// report.ReadClaims) is shown at the top of its section, before its
// figures: the QUICK RUN banner of a --quick run, one row per claim in the
// file's order, each with its verdict's summary coloured by its verdict
// constant, its id, where, the paper's words (escaped), what is checked
// (and the spec's reading), the paper's value, why a claim was not run,
// and its points as a folded table (point, outcome, a and b as label mean
// ± half (n), the checked value [interval], the region, the paper's value;
// b and paper left out when no point has one); the overview counts the
// verdicts. A folder without claims.json says so; a malformed one, or one
// of a newer format, is a warning naming the file (and the line, for a
// syntax error), and the page is still built.
func TestClaimsShownFirst(t *testing.T) {
	dir := makeResultDir(t)
	c := testClaims()
	writeClaims(t, dir, c)
	page, warns := buildOne(t, dir)
	if len(warns) > 0 {
		t.Errorf("warnings: %q", warns)
	}
	folder := section(t, page, "r1")
	claims := section(t, page, "r1-claims")
	if first := regexp.MustCompile(`<section [^>]*id="([^"]+)"`).FindAllStringSubmatch(folder, 3); len(first) < 2 || first[1][1] != "r1-claims" {
		t.Errorf("the folder's first section is not its claims: %v", first)
	}
	if !strings.Contains(claims, stdhtml.EscapeString(report.ClaimsQuickBanner)) {
		t.Error("a --quick run's claims are not marked QUICK RUN")
	}
	rows := claimRows(claims)
	if len(rows) != len(c.Claims) {
		t.Fatalf("%d claim rows for %d claims", len(rows), len(c.Claims))
	}
	classes := []string{"partly", "holds", "tie", "contradicted", "notrun"}
	for i, cl := range c.Claims {
		row := rows[i]
		wants := []string{
			`<span class="verdict v-` + classes[i] + `">` + stdhtml.EscapeString(cl.Summary) + `</span>`,
			"<q>" + stdhtml.EscapeString(cl.Quote) + "</q>", ">" + stdhtml.EscapeString(cl.Where) + "<", ">" + cl.ID + "<",
			"Checked: " + stdhtml.EscapeString(cl.Statement) + ".",
		}
		if cl.Paper == report.NoPaperValue {
			wants = append(wants, " The paper gives no value.")
		} else {
			wants = append(wants, " Paper: "+stdhtml.EscapeString(cl.Paper)+".")
		}
		if cl.Reading != "" {
			wants = append(wants, "Reading: "+stdhtml.EscapeString(strings.TrimSuffix(cl.Reading, "."))+". ")
		}
		if cl.Why != "" {
			wants = append(wants, "Not run: "+cl.Why+".")
		}
		for _, want := range wants {
			if !strings.Contains(row, want) {
				t.Errorf("claim %s: row lacks %s\n%s", cl.ID, want, row)
			}
		}
		ev := regexp.MustCompile(`(?s)<table class="evidence">(.*?)</table>`).FindAllStringSubmatch(row, -1)
		if len(ev) != 1 || !strings.Contains(row, "<details><summary>evidence of "+cl.ID+": "+strconv.Itoa(len(cl.Points))+" point(s)</summary>") {
			t.Fatalf("claim %s: %d evidence tables, want one folded", cl.ID, len(ev))
		}
		if got := strings.Count(ev[0][1], "<tr>") - 1; got != len(cl.Points) {
			t.Errorf("claim %s: %d evidence rows for %d points", cl.ID, got, len(cl.Points))
		}
	}
	if strings.Contains(claims, "<b>beats") || strings.Contains(claims, "Ridge <i>") {
		t.Error("the paper's words or a label are not escaped")
	}
	ev := func(i int) string {
		return regexp.MustCompile(`(?s)<table class="evidence">(.*?)</table>`).FindStringSubmatch(rows[i])[1]
	}
	for _, tc := range []struct {
		claim       int
		head, cells string
	}{
		{0, "point|outcome|a: mean ± 95% CI (n)|b: mean ± 95% CI (n)|checked value [interval]|holds if",
			"ε = 0.5|tie|AdaSSP: 0.06 ± 0.01 (n = 3)|Ridge <i>: 0.07 ± 0.01 (n = 3)|-0.01 [-0.03, 0.01]|< 0|" +
				"ε = 2|holds|AdaSSP: 7.437×10⁻⁷ ± 10⁻⁸ (n = 3)|Ridge <i>: 0.07 ± 0.01 (n = 3)|-0.07 [-0.08, -0.06]|< 0"},
		{1, "point|outcome|a: mean ± 95% CI (n)|checked value [interval]|holds if|paper",
			"ε = 2|holds|AdaSSP: 1.09 (n = 1)|1.09 [−∞, ∞]|[0.75, 3]|1.5"},
		{4, "point|outcome|a: mean ± 95% CI (n)|checked value [interval]|holds if",
			"dataset = Gisette|not run: no stored trial|—|—|< 0"},
	} {
		e := ev(tc.claim)
		if got := strings.Join(tagText(e, "th"), "|"); got != tc.head {
			t.Errorf("claim %d: evidence columns\n%q, want\n%q", tc.claim, got, tc.head)
		}
		if got := strings.Join(tagText(e, "td"), "|"); got != tc.cells {
			t.Errorf("claim %d: evidence cells\n%q, want\n%q", tc.claim, got, tc.cells)
		}
	}
	want := strings.ReplaceAll("holds_1 · holds_partly_1 · tie_1 · contradicted_1 · not_run_1", "_", "\u00a0")
	if ov := section(t, page, "overview"); !strings.Contains(ov, want) || !strings.Contains(ov, "quick run") || !strings.Contains(claims, want) {
		t.Errorf("no tally %q (marked quick run in the overview)", want)
	}

	path := filepath.Join(dir, report.ClaimsJSON)
	for _, tc := range []struct{ name, text, want string }{
		{"syntax error", "{\n \"version\": 1,\n \"claims\": [\n  {\"id\": \"x\",}\n]}", path + ":4: "},
		{"wrong type", "{\"version\": 1,\n\"claims\": {}}", path + ":2: "},
		{"newer format", `{"version": 99, "claims": []}`, path + ": format version 99 is newer"},
		{"another schema", `{"claims": [{"id": "x", "paper": "words", "verdict": "holds"}]}`, path + ": no format version"},
	} {
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		page, warns = buildOne(t, dir)
		if len(warns) != 1 || !strings.Contains(warns[0], tc.want) || !strings.Contains(page, stdhtml.EscapeString(tc.want)) {
			t.Errorf("%s: warnings %q, want one naming %s, shown on the page", tc.name, warns, tc.want)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	page, _ = buildOne(t, dir)
	if c := section(t, page, "r1-claims"); !strings.Contains(c, "No claims.json") || strings.Contains(c, `class="claim"`) {
		t.Errorf("a folder without claims.json:\n%s", c)
	}
}

// TestClaimsFromRender: the claims a real render writes are shown one row
// per claim, each with the summary, the paper's words and what is checked
// that claims.json holds, and one evidence row per point; the overview's
// count of verdicts adds up to the claims. The spec states the example
// claim of every check kind that "dplab kinds" prints (report.Kinds).
func TestClaimsFromRender(t *testing.T) {
	src := spectest.Valid + "\n[[curve]]\nname = \"gaussian-rdp\"\nlabel = \"RDP\"\npanel = \"p\"\nx = \"alpha\"\nparams = { alpha = [2, 4], sigma = 1 }\n"
	checks := 0
	for _, k := range report.Kinds() {
		if k.Block == "claim" {
			src += fmt.Sprintf("\n[[claim]]\n%s = %q\n%s\n", k.Key, k.Kind, k.Example)
			checks++
		}
	}
	dir := runSpec(t, src)
	c, err := report.ReadClaims(dir)
	if err != nil {
		t.Fatal(err)
	}
	page, warns := buildOne(t, dir)
	if len(warns) > 0 {
		t.Errorf("warnings: %q", warns)
	}
	claims := section(t, page, "r1-claims")
	rows := claimRows(claims)
	if len(rows) != checks || len(c.Claims) != checks || checks < 6 {
		t.Fatalf("%d claim rows for %d claims in claims.json, want one per check kind (%d)", len(rows), len(c.Claims), checks)
	}
	total := 0
	for i, cl := range c.Claims {
		row := rows[i]
		for _, want := range []string{stdhtml.EscapeString(cl.Summary), "<q>" + stdhtml.EscapeString(cl.Quote) + "</q>",
			"Checked: " + stdhtml.EscapeString(cl.Statement), `class="verdict v-` + verdictClass(cl.Verdict) + `"`} {
			if !strings.Contains(row, want) {
				t.Errorf("claim %s: row lacks %s\n%s", cl.ID, want, row)
			}
		}
		if n := strings.Count(row, "<tr>") - 1; n != len(cl.Points) || n == 0 {
			t.Errorf("claim %s: %d evidence rows for %d points", cl.ID, n, len(cl.Points))
		}
		total++
	}
	var sum int
	for _, m := range regexp.MustCompile(`\x{a0}(\d+)`).FindAllStringSubmatch(regexp.MustCompile(`(?s)<td class="text"><a href="#r1-claims">(.*?)</td>`).FindString(page), -1) {
		n, _ := strconv.Atoi(m[1])
		sum += n
	}
	if sum != total {
		t.Errorf("the overview counts %d verdicts for %d claims", sum, total)
	}
	if strings.Contains(claims, "QUICK RUN") {
		t.Error("a full run's claims are marked QUICK RUN")
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

// TestEstimateHTML: a claim's checked value with its interval, the value
// alone when the interval's ends print alike (an exact curve value, its
// rounding allowance invisible at 4 digits), ∞ where unbounded (null in
// claims.json), "—" without a value.
func TestEstimateHTML(t *testing.T) {
	nan := results.Float(math.NaN())
	for _, tc := range []struct {
		est, lo, hi results.Float
		want        string
	}{
		{-0.0016, -0.0046, 0.0013, "-0.0016 [-0.0046, 0.0013]"},
		{5.0831, 5.08309999, 5.0831001, "5.083"},
		{2, nan, 3, "2 [−∞, 3]"},
		{nan, nan, nan, "—"},
	} {
		got := stdhtml.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(string(estimateHTML(report.ClaimPoint{Estimate: tc.est, Low: tc.lo, High: tc.hi})), ""))
		if got != tc.want {
			t.Errorf("estimate %g [%g, %g]: %q, want %q", tc.est, tc.lo, tc.hi, got, tc.want)
		}
	}
}
