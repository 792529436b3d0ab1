package main

import (
	"context"
	"errors"
	"io"
)

var renderCommand = &command{
	Name:      "render",
	UsageLine: "render",
	Short:     "(not yet implemented)",
	Run: func(context.Context, []string, io.Writer, io.Writer) error {
		return errors.New("not yet implemented")
	},
}
