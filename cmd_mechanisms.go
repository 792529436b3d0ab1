package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/dplab/dplab/mechanisms"
)

var mechanismsCommand = &command{
	Name:      "mechanisms",
	UsageLine: "mechanisms [NAME...]",
	Short:     "list the registered mechanisms, or describe one and its params",
	Long: `Without a name: every registered mechanism with its title, tasks, whether
it is private, the neighbouring relation of its ledger, the event kinds the
ledger is built from, and the citation key of its paper (docs/references.md).

With names: each mechanism's paper (full citation) and every key of its
params table ([[mechanism]] params.KEY) with its TOML type, default, range
and doc. A key left out (or set to 0 or "") takes its default.

Everything is read from the mechanism registry and the params structs' doc
comments and tags, so it is what "dplab run" accepts.`,
	Run: cmdMechanisms,
}

// referencesMD is docs/references.md, the one list of citations: "dplab
// mechanisms NAME" prints the entry of the mechanism's paper from it.
//
//go:embed docs/references.md
var referencesMD string

// paperCitation returns the entry of key in docs/references.md ("Y.-X. Wang.
// Revisiting … arXiv:1803.02596v2. …") without its pointers into the
// repository's shared folder (see withoutSharedPaths), or "" if there is
// none.
func paperCitation(key string) string {
	prefix := "- [" + key + "] "
	for _, line := range strings.Split(referencesMD, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return withoutSharedPaths(strings.TrimSpace(rest))
		}
	}
	return ""
}

// sharedPathRes match a pointer of docs/references.md into ../shared (the
// research notes), which a reader of dplab's output does not have, with the
// words that introduce it.
var sharedPathRes = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(" \\(`\\.\\./shared/[^`]*`\\)"), ""},            // "version (`path`),"
	{regexp.MustCompile("[.;] [^.;()`]*`\\.\\./shared/[^`]*`\\."), "."}, // "; formulas in `path`."
}

// withoutSharedPaths removes the ../shared pointers of a references entry.
func withoutSharedPaths(entry string) string {
	for _, r := range sharedPathRes {
		entry = r.re.ReplaceAllString(entry, r.with)
	}
	return entry
}

func cmdMechanisms(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := newFlagSet("mechanisms", stdout)
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return mechanismsList(stdout)
	}
	var entries []mechanisms.Entry
	for _, n := range names {
		e, err := mechanisms.Lookup(n)
		if err != nil {
			return badInput(err)
		}
		entries = append(entries, e)
	}
	for i, e := range entries {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		mechanismDescribe(stdout, e)
	}
	return nil
}

func mechanismsList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTITLE\tTASKS\tPRIVATE\tRELATION\tEVENTS\tPAPER")
	for _, in := range mechanisms.List() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", in.Name, in.Title, tasks(in), yesNo(in.Private),
			orDash(in.Relation), strings.Join(in.Events, ", "), in.Ref)
	}
	fmt.Fprintln(tw, "\nRun 'dplab mechanisms NAME' for a mechanism's params and paper.")
	return tw.Flush()
}

func mechanismDescribe(w io.Writer, e mechanisms.Entry) {
	in := e.Info
	fmt.Fprintf(w, "%s: %s\n", in.Name, in.Title)
	fmt.Fprintf(w, "  tasks:     %s\n", tasks(in))
	if in.Private {
		fmt.Fprintf(w, "  private:   yes; relation %s; ledger events %s\n", in.Relation, strings.Join(in.Events, ", "))
	} else {
		fmt.Fprintf(w, "  private:   no (a non-private reference: ε = +Inf, no ε axis)\n")
	}
	ref := paperCitation(in.Ref)
	if ref == "" {
		ref = "(no entry in docs/references.md)"
	}
	fmt.Fprintf(w, "%s\n", wrap(fmt.Sprintf("[%s] %s", in.Ref, ref), "  paper:     ", "             ", 80))
	ps := e.Params()
	if len(ps) == 0 {
		fmt.Fprintln(w, "\nNo params.")
		return
	}
	fmt.Fprintf(w, "\nParams ([[mechanism]] params.KEY; a key left out, 0 or \"\" takes its default):\n")
	for _, p := range ps {
		fmt.Fprintf(w, "\n  %s  %s, default %s, range %s\n", p.Key, p.Type, p.Default, p.Range)
		fmt.Fprintln(w, wrap(p.Doc, "      ", "      ", 80))
	}
}

// tasks lists the tasks a mechanism fits.
func tasks(in mechanisms.Info) string {
	var s []string
	for _, t := range in.Tasks {
		s = append(s, t.String())
	}
	return strings.Join(s, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// wrap fills text into lines of at most width runes (a longer word stays
// whole), the first starting with first, the others with indent.
func wrap(text, first, indent string, width int) string {
	var b strings.Builder
	line := first
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && len([]rune(line))+1+len([]rune(word)) > width {
			b.WriteString(line + "\n")
			line, empty = indent, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	b.WriteString(line)
	return b.String()
}
