//go:build !unix

package external

import (
	"errors"
	"time"
)

type child struct{ Conn }

func startChild(argv []string, timeout time.Duration, stderrFile string) (*child, error) {
	return nil, errors.New("external schedulers run on Unix systems only")
}
