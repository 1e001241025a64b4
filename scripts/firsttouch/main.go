// Command firsttouch allocates N MB and writes one byte per 4 KiB page, to
// measure what the first touch of memory costs on a machine
// (BENCHMARKS.md, "First touch of memory"):
//
//	go build -o firsttouch ./scripts/firsttouch
//	perf stat -e task-clock,page-faults ./firsttouch 200
package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: firsttouch MB")
		os.Exit(2)
	}
	mb, err := strconv.Atoi(os.Args[1])
	if err != nil || mb < 0 || mb > 1<<16 {
		fmt.Fprintf(os.Stderr, "firsttouch: MB %q: want a whole number from 0 to 65536\n", os.Args[1])
		os.Exit(2)
	}
	b := make([]byte, mb<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	sum := 0
	for i := 0; i < len(b); i += 4096 {
		sum += int(b[i])
	}
	fmt.Println(sum, "pages touched")
}
