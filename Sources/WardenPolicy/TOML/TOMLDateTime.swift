/// A TOML date-time, date or time, checked to exist and kept with the text it was written as.
///
/// `1979-05-27T07:32:00-07:00` is an offset date-time, `1979-05-27T07:32:00` a local
/// date-time, `1979-05-27` a local date and `07:32:00.5` a local time.
struct TOMLDateTime: Sendable, Equatable {
    /// A calendar day.
    struct Date: Sendable, Equatable {
        var year: Int
        var month: Int
        var day: Int
    }

    /// A time of day; `second` may be 60 for a leap second.
    struct Time: Sendable, Equatable {
        var hour: Int
        var minute: Int
        var second: Int
        var nanosecond: Int
    }

    /// The day, absent for a local time.
    var date: Date?
    /// The time, absent for a local date.
    var time: Time?
    /// The offset from UTC in minutes (0 for "Z"), absent for local values.
    var offsetMinutes: Int?
    /// The value as the text writes it.
    var text: String

    /// What kind of value this is, with its article: "a date", "a time", "a date and time".
    var kindDescription: String {
        switch (date, time) {
        case (_?, _?): "a date and time"
        case (_?, nil): "a date"
        default: "a time"
        }
    }

    /// The number of days in `month` of `year` in the Gregorian calendar.
    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
