import FuzzDriver

// libFuzzer runs the target over generated inputs (or the files named on the command line).
runFuzzer { data, size in fuzzUploadParser(data, size) }
