package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// architectureMaxLines bounds docs/ARCHITECTURE.md (issue 36): the map of
// the code, not its detail, which lives in the package docs.
const architectureMaxLines = 300

// TestArchitectureDocNamesExist fails when docs/ARCHITECTURE.md is longer
// than architectureMaxLines, or names a file, folder, link target or Go
// identifier that does not exist in the module (checkArchitectureDoc): the
// document must stay true of the code as the code changes.
func TestArchitectureDocNamesExist(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := sharedModuleIndex()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkArchitectureDoc(".", "docs", string(doc), idx) {
		t.Errorf("docs/ARCHITECTURE.md:%s", p)
	}
}

// TestArchitectureCheckerCatchesDrift holds the checker to a document with
// known good and known bad names: it must flag exactly the bad ones.
func TestArchitectureCheckerCatchesDrift(t *testing.T) {
	idx, err := sharedModuleIndex()
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join([]string{
		"# t",
		"Good: `rngs.TrialSeed`, `Streams.Get`, `*fileutil.SymlinkError`, `rngs.TrialSeed(base, key, t)`,",
		"`rngs.Streams.Get`, `TestLayering`, `allowedImports`, `internal/rngs/`, `layering_test.go`,",
		"`internal/rngs/<name>.go`, `split.resample`, `dplab run`, `trials.jsonl`, `walk`, `test_mse`,",
		"[link](README.md), `figures/<name>.png`, `oncemap.Map[K, V].Do`, `goDecls.hasMember`.",
		"Bad: `rngs.DeriveNoSuch`, `Streams.NoSuchMethod`, `NoSuchExportedName`, `harness/nosuch.go`,",
		"`nosuch_file.go`, `../shared/DESIGN.md`, [bad link](NOSUCH.md), `noSuchFunc()`, `noSuchCamel`.",
		"```",
		"x := rngs.NoSuchInBlock(y)",
		"```",
		strings.Repeat("line\n", architectureMaxLines),
	}, "\n")
	got := checkArchitectureDoc(".", "docs", doc, idx)
	want := []string{"rngs.DeriveNoSuch", "Streams.NoSuchMethod", "NoSuchExportedName",
		"harness/nosuch.go", "nosuch_file.go", "../shared/DESIGN.md", "NOSUCH.md",
		"noSuchFunc()", "noSuchCamel", "rngs.NoSuchInBlock", "lines"}
	if len(got) != len(want) {
		t.Errorf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			if strings.Contains(g, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("problem with %q not reported; got:\n%s", w, strings.Join(got, "\n"))
		}
	}
}

// goDecls are the names one package (or the whole module) declares.
type goDecls struct {
	names   map[string]bool            // top-level functions, types, variables, constants
	members map[string]map[string]bool // type → its methods, fields, interface methods
	embeds  map[string][]string        // type → the names of the types it embeds
}

func newGoDecls() *goDecls {
	return &goDecls{names: map[string]bool{}, members: map[string]map[string]bool{}, embeds: map[string][]string{}}
}

func (d *goDecls) addMember(typ, name string) {
	if d.members[typ] == nil {
		d.members[typ] = map[string]bool{}
	}
	d.members[typ][name] = true
}

// hasMember reports whether type typ has the method or field name, directly
// or through an embedded type.
func (d *goDecls) hasMember(typ, name string, depth int) bool {
	if d.members[typ][name] {
		return true
	}
	if depth > 4 {
		return false
	}
	for _, e := range d.embeds[typ] {
		if e == name || d.hasMember(e, name, depth+1) {
			return true
		}
	}
	return false
}

// hasName reports whether the package declares name, or with prefix a
// name starting with it (accounting.Relation*).
func (d *goDecls) hasName(name string, prefix bool) bool {
	if d.names[name] {
		return true
	}
	for n := range d.names {
		if prefix && strings.HasPrefix(n, name) {
			return true
		}
	}
	return false
}

// moduleIndex holds the declarations of every package of the module, by
// package name, and their union.
type moduleIndex struct {
	pkgs  map[string]*goDecls
	all   *goDecls
	files map[string]bool // base names of the module's files
}

// sharedModuleIndex is indexModule(".") once per test binary, shared
// (read-only) by the two tests of docs/ARCHITECTURE.md, which parsed every
// Go file of the module each.
var sharedModuleIndex = sync.OnceValues(func() (*moduleIndex, error) { return indexModule(".") })

// indexModule parses every Go file under root (tests included; testdata,
// hidden and underscore folders excluded) with go/parser.
func indexModule(root string) (*moduleIndex, error) {
	idx := &moduleIndex{pkgs: map[string]*goDecls{}, all: newGoDecls(), files: map[string]bool{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		if e.IsDir() {
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		idx.files[name] = true
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := strings.TrimSuffix(f.Name.Name, "_test")
		if idx.pkgs[pkg] == nil {
			idx.pkgs[pkg] = newGoDecls()
		}
		for _, d := range []*goDecls{idx.pkgs[pkg], idx.all} {
			addDecls(d, f)
		}
		return nil
	})
	return idx, err
}

func addDecls(d *goDecls, f *ast.File) {
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if decl.Recv == nil || len(decl.Recv.List) == 0 {
				d.names[decl.Name.Name] = true
				continue
			}
			d.addMember(typeName(decl.Recv.List[0].Type), decl.Name.Name)
		case *ast.GenDecl:
			for _, s := range decl.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						d.names[n.Name] = true
					}
				case *ast.TypeSpec:
					d.names[s.Name.Name] = true
					addMembers(d, s.Name.Name, s.Type)
				}
			}
		}
	}
}

// addMembers records the fields and embedded types of a struct type, and
// the methods and embedded interfaces of an interface type.
func addMembers(d *goDecls, typ string, t ast.Expr) {
	var fields *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return
	}
	for _, f := range fields.List {
		if len(f.Names) == 0 {
			if n := typeName(f.Type); n != "" {
				d.embeds[typ] = append(d.embeds[typ], n)
				d.addMember(typ, n)
			}
			continue
		}
		for _, n := range f.Names {
			d.addMember(typ, n.Name)
		}
	}
}

// typeName is the name of a (possibly pointer, generic or qualified) type.
func typeName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return typeName(t.X)
	case *ast.IndexExpr:
		return typeName(t.X)
	case *ast.IndexListExpr:
		return typeName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return ""
}

var (
	codeSpanRE = regexp.MustCompile("`([^`\n]+)`")
	linkRE     = regexp.MustCompile(`\]\(([^)\s#]+)(#[^)]*)?\)`)
	identRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,2}$`)
	pathRE     = regexp.MustCompile(`^[A-Za-z0-9_.<>*\-/]+$`)
	qualRE     = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)(\*?)`)
	pkgNameRE  = regexp.MustCompile(`^([a-z][a-z0-9]*(?:/[a-z][a-z0-9]*)+)\.([A-Z][A-Za-z0-9_]*)$`)
	genericRE  = regexp.MustCompile(`\[[^\]]*\]`)
	// goBuiltins are not declared in the module: int(x) is no function of it.
	goBuiltins = map[string]bool{"int": true, "len": true, "cap": true, "make": true, "new": true,
		"append": true, "float64": true, "string": true, "min": true, "max": true, "panic": true}
	// tomlTables are spec tables whose key paths (split.resample) share a
	// name with an unexported type of the module.
	tomlTables = map[string]bool{"split": true}
	// fileExts are the extensions that make a code span a file name.
	fileExts = map[string]bool{".go": true, ".md": true, ".toml": true, ".json": true, ".jsonl": true,
		".csv": true, ".png": true, ".svg": true, ".tex": true, ".html": true, ".tmpl": true,
		".sh": true, ".mod": true, ".sum": true, ".conf": true, ".lock": true}
)

// checkArchitectureDoc returns a problem ("line: `name`: why") for every name
// in doc that does not exist: a file or folder path in a code span (relative
// to root when its first element exists there or it leaves the repository;
// <placeholders> match any text), a bare *.go or *.md file name (anywhere in
// the module), a relative link target (relative to docDir), or a Go
// identifier in a code span — pkg.Name and pkg.Type.Member for a package
// of the module, Type.Member, an exported or camelCase name, or name() —
// or a pkg.Name
// inside a fenced block. It also returns one when the document has more
// than architectureMaxLines lines.
func checkArchitectureDoc(root, docDir, doc string, idx *moduleIndex) []string {
	var problems []string
	lines := strings.Split(strings.TrimSuffix(doc, "\n"), "\n")
	if len(lines) > architectureMaxLines {
		problems = append(problems, fmt.Sprintf("%d: the document has %d lines, more than %d", len(lines), len(lines), architectureMaxLines))
	}
	fenced := false
	for i, line := range lines {
		at := func(name, why string) {
			problems = append(problems, fmt.Sprintf("%d: `%s`: %s", i+1, name, why))
		}
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			for _, m := range qualRE.FindAllStringSubmatch(line, -1) {
				if d := idx.pkgs[m[1]]; d != nil && m[1] != "main" && !d.hasName(m[2], m[3] == "*") {
					at(m[0], "no such name in package "+m[1])
				}
			}
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if !pathExists(filepath.Join(root, docDir, target)) {
				at(target, "link target does not exist")
			}
		}
		for _, m := range codeSpanRE.FindAllStringSubmatch(line, -1) {
			if why := checkSpan(root, strings.TrimSpace(m[1]), idx); why != "" {
				at(m[1], why)
			}
		}
	}
	return problems
}

// checkSpan returns why the code span s names something that does not
// exist, or "" when it exists or names neither a file nor a Go identifier.
func checkSpan(root, s string, idx *moduleIndex) string {
	if strings.Contains(s, "://") {
		return ""
	}
	if m := pkgNameRE.FindStringSubmatch(s); m != nil { // internal/fielddoc.Generate
		if !pathExists(filepath.Join(root, m[1])) {
			return "no such package folder"
		}
		if d := idx.pkgs[path.Base(m[1])]; d == nil || !d.names[m[2]] {
			return "no such name in package " + m[1]
		}
		return ""
	}
	if pathRE.MatchString(s) && (strings.Contains(s, "/") || fileExts[path.Ext(s)]) {
		return checkPath(root, s, idx)
	}
	call := false
	if i := strings.Index(s, "("); i > 0 && strings.HasSuffix(s, ")") {
		s, call = s[:i], true
	}
	if strings.HasPrefix(s, "map[") {
		return "" // a type expression
	}
	s = genericRE.ReplaceAllString(strings.TrimLeft(s, "*&[]"), "")
	if !identRE.MatchString(s) {
		return ""
	}
	parts := strings.Split(s, ".")
	if len(parts) == 1 {
		n := parts[0]
		exported := n[0] >= 'A' && n[0] <= 'Z' && strings.ToUpper(n) != n
		// An unexported name is checked when written as a call or in
		// camelCase (datasetsWithPending): a plain lowercase word may be a
		// TOML key, a status or a kind name.
		camel := n[0] >= 'a' && n[0] <= 'z' && strings.ToLower(n) != n
		if (!exported && !camel && !call) || goBuiltins[n] {
			return ""
		}
		if idx.all.names[n] {
			return ""
		}
		for _, m := range idx.all.members {
			if m[n] {
				return ""
			}
		}
		return "no such name in the module"
	}
	if d := idx.pkgs[parts[0]]; d != nil && parts[0] != "main" {
		if !d.names[parts[1]] {
			return "no such name in package " + parts[0]
		}
		if len(parts) == 3 && !d.hasMember(parts[1], parts[2], 0) {
			return fmt.Sprintf("%s.%s has no method or field %s", parts[0], parts[1], parts[2])
		}
		return ""
	}
	typ, member := parts[0], parts[1]
	if tomlTables[typ] {
		return ""
	}
	if _, isType := idx.all.members[typ]; !isType && !idx.all.names[typ] {
		if typ[0] >= 'A' && typ[0] <= 'Z' {
			return "no such type in the module"
		}
		return "" // a variable, a TOML or JSON key: not checked
	}
	if !idx.all.hasMember(typ, member, 0) {
		return fmt.Sprintf("type %s has no method or field %s", typ, member)
	}
	return ""
}

// checkPath checks a file or folder path named in a code span.
func checkPath(root, p string, idx *moduleIndex) string {
	p = regexp.MustCompile(`:[0-9].*$`).ReplaceAllString(p, "") // file.go:12
	if strings.HasPrefix(p, "../") {
		return "outside the repository"
	}
	glob := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(p, "*")
	if !strings.Contains(strings.TrimSuffix(p, "/"), "/") {
		ext := path.Ext(p)
		if strings.HasSuffix(p, "/") || (ext != ".go" && ext != ".md") || (ext == ".md" && strings.ContainsAny(p, "*<")) {
			return "" // a folder or an output file (figures/, trials.jsonl, <name>.caption.md): not checked
		}
		for f := range idx.files {
			if ok, _ := path.Match(glob, f); ok {
				return ""
			}
		}
		return "no such file in the module"
	}
	first := strings.SplitN(p, "/", 2)[0]
	if !pathExists(filepath.Join(root, first)) {
		return "" // an output path (figures/<name>.png), not in the repository
	}
	matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(glob, "/"))))
	if len(matches) == 0 {
		return "no such file or folder"
	}
	return ""
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
