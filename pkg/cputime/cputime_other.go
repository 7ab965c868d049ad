//go:build !linux

package cputime

func thread() (int64, bool) { return 0, false }

func gettid() int { return 0 }

func runDelay(int) (int64, bool) { return 0, false }

func process() (int64, bool) { return 0, false }

func schedstat(int, int) (int64, bool) { return 0, false }
