// expected: 'View' is inaccessible due to '@_spi' protection level
import ClawlineProtocol

func build(_ tape: JSONTape.View) -> Auth? { Auth(checked: tape, at: 0) }
