package main

import (
	"context"
	"errors"
	"io"
)

var runCommand = &command{
	Name:      "run",
	UsageLine: "run",
	Short:     "(not yet implemented)",
	Run: func(context.Context, []string, io.Writer, io.Writer) error {
		return errors.New("not yet implemented")
	},
}
