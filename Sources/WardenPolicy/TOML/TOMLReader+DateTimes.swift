extension TOMLReader {
    private static let dateMessage = "a date must be written as YYYY-MM-DD, such as 1979-05-27"
    private static let hourMessage =
        "a date and time must give the hour as two digits right after the date, such as 1979-05-27T07:32:00"
    private static let timeMessage =
        "a date and time must give the time as HH:MM:SS, then optionally a fraction and \"Z\" or an offset,"
        + " such as 1979-05-27T07:32:00.5-07:00"
    private static let localTimeMessage =
        "a time of day must be written as HH:MM:SS, optionally with a fraction, such as 07:32:00.5"
    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    /// Whether the value here has the shape of a date: with underscores skipped, a digit first
    /// and dashes fifth and eighth. Such a value is a date or an error about one, never a number.
    func isDateShaped() -> Bool {
        var shape: [UInt8] = []
        var offset = 0
        while shape.count < 8, let byte = peek(at: offset), !Self.endsValue(byte) {
            if byte != UInt8(ascii: "_") { shape.append(byte) }
            offset += 1
        }
        return shape.count == 8 && Self.isDigit(shape[0]) && shape[4] == UInt8(ascii: "-")
            && shape[7] == UInt8(ascii: "-")
    }

    /// Whether the value here has the shape of a time of day: one or two digits and a colon.
    func isTimeShaped() -> Bool {
        guard let first = peek(), Self.isDigit(first), let second = peek(at: 1) else { return false }
        return second == UInt8(ascii: ":") || (Self.isDigit(second) && peek(at: 2) == UInt8(ascii: ":"))
    }

    /// An offset date-time (`1979-05-27T07:32:00Z`), a local date-time (`1979-05-27 07:32:00`),
    /// a local date (`1979-05-27`) or a local time (`07:32:00.5`), checked to exist.
    mutating func readDateTime() throws(TOMLError) -> TOMLDateTime {
        let start = mark
        var value = TOMLDateTime(text: "")
        if isDateShaped() {
            guard let year = digits(4), take("-"), let month = digits(2), take("-"), let day = digits(2) else {
                throw error(Self.dateMessage, at: start)
            }
            let date = TOMLDateTime.Date(year: year, month: month, day: day)
            try check(date, written: String(decoding: bytes[start.offset..<position], as: UTF8.self), at: start)
            value.date = date
            let startsTime =
                take("T") || take("t")
                || (peek() == UInt8(ascii: " ") && peek(at: 1).map(Self.isDigit) == true && take(" "))
            guard startsTime else {
                guard Self.endsValue(peek()) else { throw error(Self.dateMessage, at: start) }
                value.text = String(decoding: bytes[start.offset..<position], as: UTF8.self)
                return value
            }
            guard peek().map(Self.isDigit) == true, peek(at: 1).map(Self.isDigit) == true else {
                throw error(Self.hourMessage, at: start)
            }
        }
        let message = value.date == nil ? Self.localTimeMessage : Self.timeMessage
        guard let hour = digits(2), take(":"), let minute = digits(2), take(":"), let second = digits(2) else {
            throw error(message, at: start)
        }
        var time = TOMLDateTime.Time(hour: hour, minute: minute, second: second, nanosecond: 0)
        if take(".") {
            var count = 0
            while let byte = peek(), Self.isDigit(byte) {
                if count < 9 { time.nanosecond = time.nanosecond * 10 + Int(byte - UInt8(ascii: "0")) }
                count += 1
                position += 1
            }
            guard count > 0 else { throw error(message, at: start) }
            for _ in count..<max(count, 9) { time.nanosecond *= 10 }
        }
        guard hour <= 23, minute <= 59, second <= 60 else {
            throw error(
                "the time \(Self.twoDigits(hour)):\(Self.twoDigits(minute)):\(Self.twoDigits(second)) does not exist "
                    + "(hours run from 00 to 23, minutes from 00 to 59 and seconds from 00 to 60)", at: start)
        }
        value.time = time
        if value.date != nil {
            if take("Z") || take("z") {
                value.offsetMinutes = 0
            } else if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                position += 1
                guard let hours = digits(2), take(":"), let minutes = digits(2) else { throw error(message, at: start) }
                guard hours <= 23, minutes <= 59 else {
                    throw error(
                        "the offset \(Character(Unicode.Scalar(sign)))\(Self.twoDigits(hours)):\(Self.twoDigits(minutes))"
                            + " does not exist (offsets run from -23:59 to +23:59)", at: start)
                }
                value.offsetMinutes = (hours * 60 + minutes) * (sign == UInt8(ascii: "-") ? -1 : 1)
            }
        }
        guard Self.endsValue(peek()) else { throw error(message, at: start) }
        value.text = String(decoding: bytes[start.offset..<position], as: UTF8.self)
        return value
    }

    /// Refuses a day that the calendar does not have.
    private func check(_ date: TOMLDateTime.Date, written: String, at start: Mark) throws(TOMLError) {
        guard (1...12).contains(date.month) else {
            throw error("the date \(written) does not exist (months run from 01 to 12)", at: start)
        }
        let days = TOMLDateTime.days(inMonth: date.month, year: date.year)
        guard (1...days).contains(date.day) else {
            throw error(
                "the date \(written) does not exist (\(Self.monthNames[date.month - 1]) \(date.year) has \(days) days)",
                at: start)
        }
    }

    /// Exactly `count` decimal digits, as a number.
    private mutating func digits(_ count: Int) -> Int? {
        var value = 0
        for offset in 0..<count {
            guard let byte = peek(at: offset), Self.isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        position += count
        return value
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
