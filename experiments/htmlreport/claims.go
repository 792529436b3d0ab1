package htmlreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ClaimsFile is the file of a result folder holding its claims and their
// verdicts, as the run's claims check writes them; the page shows them at
// the top of the folder.
const ClaimsFile = "claims.json"

// claims is what the page shows of a folder's ClaimsFile.
type claims struct {
	Items []claim
}

// claim is one claim: the paper's words and where they are, its verdict,
// and the per-point evidence as a small table.
type claim struct {
	ID, Words, Where, Verdict string
	Evidence                  evidence
}

// evidence is a claim's points as a table: the keys of the points (objects)
// in first-seen order, one row per point.
type evidence struct {
	Columns []string
	Rows    [][]string
}

// readClaims reads dir's ClaimsFile; nil without one. It is the one place
// that knows the file's schema:
//
//	{"claims": [{"id": ..., "paper": the paper's words, "where": ...,
//	             "verdict": ..., "points": [per-point evidence, ...]}, ...]}
//
// Each point is shown as the row of a table whose columns are the points'
// keys (a point that is not an object is shown whole, in a column "point").
func readClaims(dir string) (*claims, error) {
	path := filepath.Join(dir, ClaimsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Claims []struct {
			ID      string            `json:"id"`
			Paper   string            `json:"paper"`
			Where   string            `json:"where"`
			Verdict string            `json:"verdict"`
			Points  []json.RawMessage `json:"points"`
		} `json:"claims"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%d: %v", path, 1+bytes.Count(b[:se.Offset], []byte("\n")), err)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	out := &claims{}
	for _, c := range doc.Claims {
		ev, err := pointsTable(c.Points)
		if err != nil {
			return nil, fmt.Errorf("%s: claim %q: points: %v", path, c.ID, err)
		}
		out.Items = append(out.Items, claim{ID: c.ID, Words: c.Paper, Where: c.Where, Verdict: c.Verdict, Evidence: ev})
	}
	return out, nil
}

// pointsTable lays the points out as a table: one column per key of the
// objects, in first-seen order, and "point" for a point that is not an
// object. A missing key is "—".
func pointsTable(points []json.RawMessage) (evidence, error) {
	var ev evidence
	col := map[string]int{}
	var rows []map[int]string
	for _, p := range points {
		kvs, err := objectFields(p)
		if err != nil {
			return ev, err
		}
		row := map[int]string{}
		for _, kv := range kvs {
			i, ok := col[kv[0]]
			if !ok {
				i = len(ev.Columns)
				col[kv[0]] = i
				ev.Columns = append(ev.Columns, kv[0])
			}
			row[i] = kv[1]
		}
		rows = append(rows, row)
	}
	for _, row := range rows {
		cells := make([]string, len(ev.Columns))
		for i := range cells {
			if v, ok := row[i]; ok {
				cells[i] = v
			} else {
				cells[i] = "—"
			}
		}
		ev.Rows = append(ev.Rows, cells)
	}
	return ev, nil
}

// objectFields returns a JSON object's keys and values as text, in the
// file's order; a value that is not an object is one field "point".
func objectFields(raw json.RawMessage) ([][2]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return [][2]string{{"point", jsonText(raw)}}, nil
	}
	var out [][2]string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, [2]string{key.(string), jsonText(v)})
	}
	return out, nil
}

// jsonText is a JSON value as the page shows it: a string's text, a number
// with up to 6 significant digits, null as "—", anything else compact JSON.
func jsonText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	if string(v) == "null" {
		return "—"
	}
	if x, err := strconv.ParseFloat(string(v), 64); err == nil {
		return prettyExp(strconv.FormatFloat(x, 'g', 6, 64))
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) == nil {
		return buf.String()
	}
	return string(v)
}

// verdictClass sorts a verdict into the classes the page colours and
// counts: holds, partly (holds at k of n), tie, contradicted, notrun
// (not run: why), other.
func verdictClass(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	switch {
	case strings.HasPrefix(v, "holds at"):
		return "partly"
	case strings.HasPrefix(v, "holds"):
		return "holds"
	case strings.HasPrefix(v, "tie"):
		return "tie"
	case strings.HasPrefix(v, "contradicted"):
		return "contradicted"
	case strings.HasPrefix(v, "not run"):
		return "notrun"
	}
	return "other"
}

// verdictClasses are the classes in the order their counts are shown, with
// their words.
var verdictClasses = [][2]string{
	{"holds", "holds"}, {"partly", "holds partly"}, {"tie", "tie"},
	{"contradicted", "contradicted"}, {"notrun", "not run"}, {"other", "other"},
}

// Tally counts the claims by verdict class: "holds 3 · tie 1 · contradicted
// 1", a line breaking only between counts.
func (c *claims) Tally() string {
	n := map[string]int{}
	for _, it := range c.Items {
		n[verdictClass(it.Verdict)]++
	}
	var parts []string
	for _, vc := range verdictClasses {
		if n[vc[0]] > 0 {
			parts = append(parts, fmt.Sprintf("%s\u00a0%d", strings.ReplaceAll(vc[1], " ", "\u00a0"), n[vc[0]])) // unbroken
		}
	}
	if len(parts) == 0 {
		return "no claims"
	}
	return strings.Join(parts, " · ")
}
