// expected: 'validationPlan' is inaccessible due to '@_spi' protection level
import ClawlineProtocol

let plan = Auth.validationPlan
