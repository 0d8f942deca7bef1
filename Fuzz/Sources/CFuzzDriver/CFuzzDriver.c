// libFuzzer provides the driver; this target only declares it for Swift.
