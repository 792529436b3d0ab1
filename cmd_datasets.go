package main

import (
	"context"
	"errors"
	"io"
)

var datasetsCommand = &command{
	Name:      "datasets",
	UsageLine: "datasets",
	Short:     "(not yet implemented)",
	Run: func(context.Context, []string, io.Writer, io.Writer) error {
		return errors.New("not yet implemented")
	},
}
