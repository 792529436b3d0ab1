// Package fielddoc documents the keys of plug-in params structs (mechanism
// params, figure and table blocks) from one source: each field's Go doc
// comment, its `toml` key and its `default` and `range` struct tags.
//
// Go comments are not available at run time, so Generate extracts them from
// a package's source into a generated Go file (a map from "Type.Field" to the
// comment); the package's test regenerates it and fails when the file is
// stale. Fields then lists a struct type's keys by reflection, embedded
// structs included, with their TOML type, default, range and doc.
package fielddoc

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Field is one key of a params struct.
type Field struct {
	Key     string // the toml key, e.g. "rho"
	Type    string // TOML type: "float", "integer", "string", "boolean", "array of strings", …
	Default string // the `default` tag: what the zero value (the key left out) means
	Range   string // the `range` tag: the values Validate accepts ("(0, 1)", "box | accountant"); "true | false" for booleans
	Doc     string // the field's doc comment, one paragraph
	// Only is the `only` tag split at spaces: the registry names the key
	// applies to, when a params struct is shared by several (nil: all).
	Only   []string
	GoName string // "Type.Field" of the struct that declares the field
}

// Fields lists the toml-keyed fields of the struct type t (a pointer is
// dereferenced) in declaration order, descending into embedded structs
// without a toml tag. docs maps "Type.Field" to the field's doc comment (a
// generated map, see Generate). Fields without a toml key ("-" or
// unexported) are left out.
func Fields(t reflect.Type, docs map[string]string) []Field {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []Field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("toml")
		if f.Anonymous && !hasTag && f.Type.Kind() == reflect.Struct {
			out = append(out, Fields(f.Type, docs)...)
			continue
		}
		key := strings.Split(tag, ",")[0]
		if !f.IsExported() || !hasTag || key == "" || key == "-" {
			continue
		}
		goName := t.Name() + "." + f.Name
		fd := Field{Key: key, Type: tomlType(f.Type), Default: f.Tag.Get("default"), Range: f.Tag.Get("range"), Doc: docs[goName], GoName: goName}
		if only := f.Tag.Get("only"); only != "" {
			fd.Only = strings.Fields(only)
		}
		if fd.Range == "" && f.Type.Kind() == reflect.Bool {
			fd.Range = "true | false"
		}
		out = append(out, fd)
	}
	return out
}

// Typed is a type that decodes from TOML itself and names what it
// accepts ("value or array of values"), for Field.Type.
type Typed interface {
	TOMLType() string
}

// tomlType names the TOML type a Go field decodes from.
func tomlType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v, ok := reflect.New(t).Interface().(Typed); ok {
		return v.TOMLType()
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array of " + plural(tomlType(t.Elem()))
	case reflect.Map, reflect.Struct:
		return "table"
	}
	return t.String()
}

func plural(s string) string {
	switch s {
	case "float", "integer", "string", "boolean", "table":
		return s + "s"
	}
	return s
}

// Generate returns the Go source of a file of package pkg that declares
//
//	var <varName> = map[string]string{"Type": "type doc", "Type.Field": "field doc", …}
//
// for every toml-tagged field of every top-level struct type declared in the
// non-test Go files of dir, and for the doc of each such type (the file
// named out, the generated file itself, is skipped). A field's doc is its
// doc comment, else its line comment; each doc is joined into one
// paragraph. by names the command that regenerates the file, for
// its header.
func Generate(dir, pkg, varName, out, by string) ([]byte, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	docs := map[string]string{}
	fset := token.NewFileSet()
	for _, p := range paths {
		base := filepath.Base(p)
		if strings.HasSuffix(base, "_test.go") || base == out {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if f.Name.Name != pkg {
			continue
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, sp := range gd.Specs {
				ts := sp.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				if structDocs(docs, ts.Name.Name, st) && doc != nil {
					docs[ts.Name.Name] = paragraph(doc.Text())
				}
			}
		}
	}
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by %s; DO NOT EDIT.\n\n", by)
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	fmt.Fprintf(&b, "// %s maps \"Type.Field\" of every toml-tagged struct field of the package to\n// its doc comment (internal/fielddoc.Generate).\n", varName)
	fmt.Fprintf(&b, "var %s = map[string]string{\n", varName)
	for _, k := range keys {
		fmt.Fprintf(&b, "\t%s: %s,\n", strconv.Quote(k), strconv.Quote(docs[k]))
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

// structDocs adds the doc of every toml-tagged field of struct type name
// to docs and reports whether there was one.
func structDocs(docs map[string]string, name string, st *ast.StructType) bool {
	tagged := false
	for _, fl := range st.Fields.List {
		if fl.Tag == nil || len(fl.Names) == 0 {
			continue
		}
		tag, err := strconv.Unquote(fl.Tag.Value)
		if err != nil {
			continue
		}
		if _, ok := reflect.StructTag(tag).Lookup("toml"); !ok {
			continue
		}
		tagged = true
		text := fl.Doc.Text()
		if text == "" {
			text = fl.Comment.Text()
		}
		for _, n := range fl.Names {
			docs[name+"."+n.Name] = paragraph(text)
		}
	}
	return tagged
}

// paragraph joins the lines of a comment into one line.
func paragraph(text string) string {
	return strings.Join(strings.Fields(text), " ")
}

// UpdateEnv is the environment variable that makes CheckGenerated rewrite
// the generated file instead of comparing it (go generate sets it).
const UpdateEnv = "DPLAB_UPDATE_PARAMDOCS"

// CheckGenerated compares the generated file out in dir with what Generate
// gives now and returns an error naming the file when it is stale; with
// $DPLAB_UPDATE_PARAMDOCS set it rewrites the file instead. A package's test
// calls it, and its go:generate line runs that test with the variable set.
func CheckGenerated(dir, pkg, varName, out, by string) error {
	want, err := Generate(dir, pkg, varName, out, by)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, out)
	if os.Getenv(UpdateEnv) != "" {
		return os.WriteFile(path, want, 0o644)
	}
	got, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is missing: run %s", path, by)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s is stale: a field's doc comment changed; run %s", path, by)
	}
	return nil
}
