// expected: cannot find 'JSONOutput' in scope
import ClawlineProtocol

var output = JSONOutput()
