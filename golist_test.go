package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"sync"
	"testing"
)

// listedPackage is what the tests read of one package of go list.
type listedPackage struct {
	ImportPath, Dir, Name, Export string
	GoFiles, Imports              []string
	DepOnly                       bool // a dependency of the module's packages, not one of them
}

// goList runs "go list -export -deps ./..." once for the tests that read
// the module's packages (TestLayering, TestDefaultRootIsNoPackage,
// TestNoSpecWritesOutsideSpec): each go list loads every package again.
var goList = sync.OnceValues(func() ([]listedPackage, error) {
	out, err := exec.Command("go", "list", "-export", "-deps",
		"-json=ImportPath,Dir,Name,Export,GoFiles,Imports,DepOnly", "./...").Output()
	if err != nil {
		return nil, err
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
})

// modulePackages returns the packages of ./... (goList without the
// dependencies), failing t when go list fails.
func modulePackages(t *testing.T) []listedPackage {
	t.Helper()
	all, err := goList()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var out []listedPackage
	for _, p := range all {
		if !p.DepOnly {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatal("go list ./... listed no package")
	}
	return out
}
