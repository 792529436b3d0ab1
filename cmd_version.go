package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/dplab/dplab/results"
)

var versionCommand = &command{
	Name:      "version",
	UsageLine: "version",
	Short:     "print dplab's version, git revision and Go version",
	Run:       cmdVersion,
}

func cmdVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stdout)
	if _, err := parseInterleaved(fs, args); err != nil {
		return err
	}
	p := results.CurrentBuild()
	fmt.Fprintf(stdout, "dplab %s (revision %s) %s %s/%s\n", p.Version, p.Revision, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
