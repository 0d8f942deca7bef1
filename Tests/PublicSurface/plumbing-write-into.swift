// expected: 'write' is inaccessible due to '@_spi' protection level
import ClawlineProtocol

func writer(_ frame: ClientFrame) -> Any { frame.write }
