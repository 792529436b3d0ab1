package main

import (
	"context"
	"errors"
	"io"
)

var planCommand = &command{
	Name:      "plan",
	UsageLine: "plan",
	Short:     "(not yet implemented)",
	Run: func(context.Context, []string, io.Writer, io.Writer) error {
		return errors.New("not yet implemented")
	},
}
