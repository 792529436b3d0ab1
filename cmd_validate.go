package main

import (
	"context"
	"errors"
	"io"
)

var validateCommand = &command{
	Name:      "validate",
	UsageLine: "validate",
	Short:     "(not yet implemented)",
	Run: func(context.Context, []string, io.Writer, io.Writer) error {
		return errors.New("not yet implemented")
	},
}
