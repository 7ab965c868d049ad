module github.com/exageostat/exageostat

go 1.26.0

require (
	github.com/spf13/cobra v1.10.2
	golang.org/x/term v0.47.0
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/go-nlopt/nlopt v0.0.0-20230219125344-443d3362dcb5 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
