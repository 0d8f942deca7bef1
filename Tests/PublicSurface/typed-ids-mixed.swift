// expected: cannot convert value of type 'UserId' to expected argument type 'DeviceId'
import ClawlineProtocol

func mixedUp(user: UserId) -> Auth { Auth(token: "t", deviceId: user) }
