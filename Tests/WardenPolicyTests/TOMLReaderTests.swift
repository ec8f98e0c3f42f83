import Testing

@testable import WardenPolicy

/// The TOML 1.0 reader: every kind of value, tables and their order, and every kind of text
/// TOML refuses, each refusal naming its line and column.
@Suite struct TOMLReaderTests {
    /// The root of `text` as located tables.
    private func root(_ text: String) throws -> LocatedTable {
        try LocatedDocument(text: text, file: "t.toml").root
    }

    /// The one value under `key` in `text`.
    private func value(_ text: String, _ key: String = "a") throws -> LocatedValue.Kind {
        try #require(try root(text)[key]).value
    }

    /// The error reading `text` stops at, or nil when it reads.
    private func failure(_ text: String) -> TOMLError? {
        var reader = TOMLReader(text: text)
        do {
            _ = try reader.read()
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Strings

    /// A basic string decodes every escape TOML 1.0 has, including \u and \U.
    @Test func basicStringsDecodeEveryEscape() throws {
        let text = #"a = "b\bt\tn\nf\fr\rq\"s\\u\u00E9U\U0001F600 é""#
        #expect(try value(text) == .string("b\u{8}t\tn\nf\u{C}r\rq\"s\\u\u{E9}U\u{1F600} é"))
    }

    /// A literal string keeps backslashes and quotes of the other kind as written.
    @Test func literalStringsKeepTheirText() throws {
        #expect(try value(#"a = 'C:\Users\n "x"'"#) == .string(#"C:\Users\n "x""#))
        #expect(try value("a = ''") == .string(""))
    }

    /// A multi-line basic string drops the line end after its opening quotes, joins lines at a
    /// backslash, reads CRLF as LF and may end with up to two quotes of its own.
    @Test func multiLineBasicStrings() throws {
        let text = "a = \"\"\"\r\nfirst\r\nsecond \\\n    third\\\n\n  fourth \"\"quoted\"\"\"\"\"\n"
        #expect(try value(text) == .string("first\nsecond thirdfourth \"\"quoted\"\""))
        #expect(try value("a = \"\"\"\"\"\"") == .string(""))
        #expect(try value("a = \"\"\"one\"two\"\"\"\"") == .string("one\"two\""))
    }

    /// A multi-line literal string keeps everything but the first line end as written.
    @Test func multiLineLiteralStrings() throws {
        let text = "a = '''\nC:\\path\\\n  'quoted'  ''two'''''\n"
        #expect(try value(text) == .string("C:\\path\\\n  'quoted'  ''two''"))
    }

    // MARK: - Numbers, booleans, dates

    /// Integers in every base, with signs and underscores, to the ends of 64 bits.
    @Test(arguments: [
        ("42", 42), ("+17", 17), ("-17", -17), ("0", 0), ("-0", 0), ("1_000_000", 1_000_000),
        ("0xDEAD_beef", 0xDEAD_BEEF), ("0o755", 0o755), ("0b1101_0110", 0b1101_0110), ("0x0000_00ff", 255),
        ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min), ("0x7FFFFFFFFFFFFFFF", Int.max),
    ])
    func integersAreRead(text: String, expected: Int) throws {
        #expect(try value("a = \(text)\n") == .integer(expected))
    }

    /// Floats with fractions, exponents and underscores, and the special values.
    @Test(arguments: [
        ("3.1415", 3.1415), ("-0.01", -0.01), ("+1.0", 1.0), ("5e+22", 5e22), ("1e06", 1e6), ("-2E-2", -0.02),
        ("6.626e-34", 6.626e-34), ("224_617.445_991", 224_617.445_991), ("1e1_0", 1e10), ("0.0", 0.0),
        ("inf", Double.infinity), ("+inf", Double.infinity), ("-inf", -Double.infinity),
    ])
    func floatsAreRead(text: String, expected: Double) throws {
        #expect(try value("a = \(text)\n") == .float(expected))
    }

    /// `nan` and its signed forms are floats that are not numbers; -0.0 keeps its sign.
    @Test func notANumberAndNegativeZero() throws {
        for text in ["nan", "+nan", "-nan"] {
            guard case .float(let number) = try value("a = \(text)") else {
                Issue.record("\(text) is not a float")
                continue
            }
            #expect(number.isNaN, "\(text)")
        }
        guard case .float(let zero) = try value("a = -0.0") else {
            Issue.record("-0.0 is not a float")
            return
        }
        #expect(zero == 0 && zero.sign == .minus)
    }

    /// Booleans are read in lower case.
    @Test func booleansAreRead() throws {
        #expect(try value("a = true") == .bool(true))
        #expect(try value("a = false # no") == .bool(false))
    }

    /// Offset and local date-times, dates and times are kept as written, with their parts.
    @Test(
        arguments: [
            ("1979-05-27T07:32:00Z", 1979, 7, 0, 0),
            ("1979-05-27T00:32:00.999999-07:00", 1979, 0, 999_999_000, -420),
            ("1979-05-27 07:32:00+05:30", 1979, 7, 0, 330),
            ("1979-05-27t07:32:00z", 1979, 7, 0, 0),
            ("2000-02-29T23:59:60.5", 2000, 23, 500_000_000, nil),
            ("1979-05-27", 1979, nil, nil, nil),
            ("07:32:00", nil, 7, 0, nil),
            ("00:32:00.123456789123", nil, 0, 123_456_789, nil),
        ] as [(String, Int?, Int?, Int?, Int?)])
    func dateTimesAreRead(text: String, year: Int?, hour: Int?, nanosecond: Int?, offset: Int?) throws {
        var reader = TOMLReader(text: "a = \(text) # comment\n")
        let document = try reader.read()
        guard case .dateTime(let dateTime)? = document.root["a"]?.value else {
            Issue.record("\(text) is not a date-time")
            return
        }
        #expect(dateTime.text == text)
        #expect(dateTime.date?.year == year)
        #expect(dateTime.time?.hour == hour)
        #expect(dateTime.time?.nanosecond == nanosecond)
        #expect(dateTime.offsetMinutes == offset)
        #expect(try value("a = \(text)") == .date(text))
    }

    // MARK: - Arrays and tables

    /// Arrays nest, mix kinds, span lines with comments and may end with a comma; each element
    /// carries the line it starts on.
    @Test func arraysAreRead() throws {
        let text = """
            a = [
              1, "two", # a comment
              [3.0, [true]],
              { four = 4 },
            ]
            b = []
            """
        let elements = try #require(try root(text)["a"]?.array)
        #expect(elements.map(\.line) == [2, 2, 3, 4])
        #expect(elements[0].value == .integer(1))
        #expect(elements[1].value == .string("two"))
        #expect(elements[2].array?.first?.value == .float(3))
        #expect(elements[2].array?.last?.array?.first?.value == .bool(true))
        #expect(elements[3].table?["four"]?.value == .integer(4))
        #expect(try root(text)["b"]?.array?.isEmpty == true)
    }

    /// Inline tables nest and take dotted keys; the empty one is a table too.
    @Test func inlineTablesAreRead() throws {
        let table = try root(#"a = { b = 1, c.d = "e", f = { g = [1] }, h = {} }"#)
        let a = try #require(table["a"]?.table)
        #expect(a.keys == ["b", "c", "f", "h"])
        #expect(a["c"]?.table?["d"]?.string == "e")
        #expect(a["f"]?.table?["g"]?.array?.first?.integer == 1)
        #expect(a["h"]?.table?.isEmpty == true)
    }

    /// Headers, dotted keys, quoted keys, a super-table defined after its sub-table and a
    /// sub-table under a table made by dotted keys all land where TOML puts them.
    @Test func tablesAndKeysLandInPlace() throws {
        let text = """
            "quoted key" = 1
            "" = 2
            'a.b' = 3
            site."google.com" = true

            [x.y.z]
            w = 1
            [x]
            v = 2

            [fruit]
            apple.color = "red"
            apple.taste.sweet = true
            [fruit.apple.texture]
            smooth = true
            """
        let table = try root(text)
        #expect(table.keys == ["quoted key", "", "a.b", "site", "x", "fruit"])
        #expect(table["site"]?.table?["google.com"]?.bool == true)
        #expect(table["x"]?.table?.keys == ["y", "v"])
        #expect(table["x"]?.table?["y"]?.table?["z"]?.table?["w"]?.integer == 1)
        let apple = try #require(table["fruit"]?.table?["apple"]?.table)
        #expect(apple.keys == ["color", "taste", "texture"])
        #expect(apple["texture"]?.table?["smooth"]?.bool == true)
        #expect(apple["texture"]?.keyPath == ["fruit", "apple", "texture"])
    }

    /// Arrays of tables collect one table per header, and sub-tables and nested arrays of
    /// tables go into the last element.
    @Test func arraysOfTablesCollectTheirElements() throws {
        let text = """
            [[fruit]]
            name = "apple"
            [fruit.physical]
            color = "red"
            [[fruit.variety]]
            name = "red delicious"
            [[fruit.variety]]
            name = "granny smith"

            [[fruit]]
            name = "banana"
            [[fruit.variety]]
            name = "plantain"
            """
        let fruit = try #require(try root(text)["fruit"])
        #expect(fruit.line == 1)
        let elements = try #require(fruit.array)
        #expect(elements.map(\.line) == [1, 10])
        #expect(elements.map { $0.table?["name"]?.string } == ["apple", "banana"])
        #expect(elements[0].table?["physical"]?.table?["color"]?.string == "red")
        #expect(
            elements[0].table?["variety"]?.array?.map { $0.table?["name"]?.string } == [
                "red delicious", "granny smith",
            ])
        #expect(elements[1].table?["variety"]?.array?.map(\.line) == [12])
    }

    /// Keys keep the order in which the text first writes them, at every level.
    @Test func keysKeepTheirOrder() throws {
        let text = """
            zulu = 1
            alpha.yankee = 2
            alpha.bravo = 3
            [mike.xray]
            [mike]
            charlie = 4
            [delta]
            """
        let table = try root(text)
        #expect(table.keys == ["zulu", "alpha", "mike", "delta"])
        #expect(table["alpha"]?.table?.keys == ["yankee", "bravo"])
        #expect(table["mike"]?.table?.keys == ["xray", "charlie"])
    }

    /// A byte-order mark, CRLF line ends, blank lines and comments change nothing.
    @Test func byteOrderMarkAndCRLFAreAccepted() throws {
        let table = try root("\u{FEFF}# title\r\n\r\na = 1 # one\r\n[b]\r\nc = 'd'\r\n")
        #expect(table["a"]?.integer == 1)
        #expect(table["b"]?.table?["c"]?.line == 5)
    }

    /// A table header written twice and a key set twice (in a table and in an inline table)
    /// are noted with both lines and the reading goes on; the second is left out.
    @Test func duplicatesAreNotedAndLeftOut() throws {
        let text = """
            [a]
            b = 1
            b = 2
            c = { d = 1, d = 2 }
            [a]
            e = 3
            """
        var reader = TOMLReader(text: text)
        let document = try reader.read()
        #expect(
            reader.duplicates == [
                TOMLReader.Duplicate(keyPath: ["a", "b"], line: 3, firstLine: 2, isTableHeader: false),
                TOMLReader.Duplicate(keyPath: ["a", "c", "d"], line: 4, firstLine: 4, isTableHeader: false),
                TOMLReader.Duplicate(keyPath: ["a"], line: 5, firstLine: 1, isTableHeader: true),
            ])
        let table = try LocatedDocument(lenientText: text, file: "t.toml", label: "Policy").root
        #expect(table["a"]?.table?.keys == ["b", "c"])
        #expect(table["a"]?.table?["b"]?.integer == 1)
        #expect(table["a"]?.table?["c"]?.table?["d"]?.integer == 1)
        #expect(document.root.keys == ["a"])
    }

    // MARK: - Refusals

    /// Each kind of text TOML refuses stops the reading at its line and column, with a sentence.
    @Test(arguments: [
        // Redefined tables and keys.
        (
            "[a]\nb.c = 1\n[a.b]\n", 3, 1,
            "table [a.b] was already made by dotted keys at line 2; a header cannot define it again"
        ),
        (
            "a = { x = 1 }\n[a]\n", 2, 1,
            "table [a] was written as an inline table at line 1, which is complete as written"
        ),
        (
            "a = { x = 1 }\na.y = 2\n", 2, 1,
            "a dotted key cannot add to \"a\": it is an inline table, complete as written at line 1"
        ),
        (
            "a = { x = 1 }\n[a.b]\n", 2, 1,
            "[a.b] cannot add to \"a\": it is an inline table, complete as written at line 1"
        ),
        (
            "a = { b = { c = 1 }, b.d = 2 }\n", 1, 22,
            "a dotted key cannot add to \"a.b\": it is an inline table, complete as written at line 1"
        ),
        (
            "[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", 4, 1,
            "a dotted key cannot add to table [a.b.c], which has its own header at line 1; write the key under that header"
        ),
        ("a = 1\n[a.b]\n", 2, 1, "[a.b] cannot add to \"a\": it is an integer set at line 1"),
        ("a = 1\n[a]\n", 2, 1, "[a] cannot define a table: \"a\" is an integer set at line 1"),
        ("a = []\n[[a]]\n", 2, 1, "[[a]] cannot add a table to \"a\": it is an array written as a value at line 1"),
        ("[a]\n[[a]]\n", 2, 1, "[[a]] cannot make \"a\" an array of tables: it is a table, first named at line 1"),
        ("[[a]]\n[a]\n", 2, 1, "[a] cannot define a table: \"a\" is an array of tables ([[a]] at line 1)"),
        (
            "[[a.b]]\n[a]\nb.c = 1\n", 3, 1,
            "a dotted key cannot add to \"a.b\": it is an array of tables, begun at line 1"
        ),
        ("a.b = 1\na = 2\n", 2, 1, "key \"a\" cannot be set: it is already a table, first named at line 1"),
        ("a = \"x\"\na.b = 1\n", 2, 1, "a dotted key cannot add to \"a\": it is a string set at line 1"),
        // Strings.
        (
            #"a = "\q""#, 1, 6,
            #"unknown escape sequence "\q"; a string may use \b, \t, \n, \f, \r, \", \\, \uXXXX and \UXXXXXXXX (write \\ for a backslash)"#
        ),
        (
            #"a = "\e""#, 1, 6,
            #"unknown escape sequence "\e"; a string may use \b, \t, \n, \f, \r, \", \\, \uXXXX and \UXXXXXXXX (write \\ for a backslash)"#
        ),
        (
            "a = \"\"\"x\\ y\"\"\"", 1, 9,
            #"unknown escape sequence "\ "; a string may use \b, \t, \n, \f, \r, \", \\, \uXXXX and \UXXXXXXXX (write \\ for a backslash)"#
        ),
        (#"a = "\u12G4""#, 1, 6, #"the escape \u must be followed by four hexadecimal digits, such as \u00E9"#),
        (#"a = "\U0001F60""#, 1, 6, #"the escape \U must be followed by eight hexadecimal digits, such as \U0001F600"#),
        (
            #"a = "\uD800""#, 1, 6,
            "the escape \\uD800 is not a Unicode scalar value (surrogates D800 to DFFF and values above 10FFFF are not)"
        ),
        (
            "a = \"x\u{1}\"", 1, 7,
            "a string cannot hold the control character U+0001; write it as the escape \\u0001 in a string between double quotes"
        ),
        (
            "a = 'x\u{7F}'", 1, 7,
            "a string cannot hold the control character U+007F; write it as the escape \\u007F in a string between double quotes"
        ),
        (
            "a = \"\"\"\nx\u{0}\"\"\"", 2, 2,
            "a string cannot hold the control character U+0000; write it as the escape \\u0000 in a string between double quotes"
        ),
        ("a = 1\nb = \"open\nc = 2\n", 2, 5, "a string is not closed before the end of the line"),
        ("a = '''\nopen\n", 1, 5, "a string is not closed before the end of the file"),
        (
            "a = \"\"\"x\"\"\"\"\"\"\n", 1, 9,
            "a multi-line string may end with at most five quotes in a row: up to two of its own and the three that close it"
        ),
        // Numbers.
        ("a = 0123", 1, 5, "the number 0123 has a leading zero, which TOML does not allow"),
        ("a = -03.14", 1, 5, "the number -03.14 has a leading zero, which TOML does not allow"),
        ("a = 1__000", 1, 5, "the number 1__000 has an underscore that is not between two digits"),
        ("a = 1_", 1, 5, "the number 1_ has an underscore that is not between two digits"),
        ("a = 1_.5", 1, 5, "the number 1_.5 has an underscore that is not between two digits"),
        ("a = 0x_1", 1, 5, "the number 0x_1 has an underscore that is not between two digits"),
        ("a = 1.", 1, 5, "the number 1. needs digits on both sides of its decimal point"),
        ("a = 1.e5", 1, 5, "the number 1.e5 needs digits on both sides of its decimal point"),
        ("a = 1e", 1, 5, "the number 1e needs digits in its exponent"),
        ("a = +0x1F", 1, 5, "the number +0x1F has a sign, which a hexadecimal, octal or binary number cannot have"),
        ("a = 0xG1", 1, 5, "the number 0xG1 is not a valid hexadecimal integer"),
        ("a = 0b102", 1, 5, "the number 0b102 is not a valid binary integer"),
        ("a = 0o8", 1, 5, "the number 0o8 is not a valid octal integer"),
        ("a = 0X1F", 1, 5, "the value 0X1F is not a valid number, date or time"),
        ("a = 12abc", 1, 5, "the value 12abc is not a valid number, date or time"),
        (
            "a = 9223372036854775808", 1, 5,
            "the integer 9223372036854775808 does not fit in 64 bits (from -9223372036854775808 to 9223372036854775807)"
        ),
        (
            "a = 0x1_0000_0000_0000_0000", 1, 5,
            "the integer 0x1_0000_0000_0000_0000 does not fit in 64 bits (from -9223372036854775808 to 9223372036854775807)"
        ),
        ("a = 1e400", 1, 5, "the number 1e400 is too large for a 64-bit floating-point number"),
        // Dates and times.
        ("a = 1979-13-01", 1, 5, "the date 1979-13-01 does not exist (months run from 01 to 12)"),
        ("a = 1979-02-29", 1, 5, "the date 1979-02-29 does not exist (February 1979 has 28 days)"),
        ("a = 2100-02-29T00:00:00", 1, 5, "the date 2100-02-29 does not exist (February 2100 has 28 days)"),
        ("a = 1979-04-00", 1, 5, "the date 1979-04-00 does not exist (April 1979 has 30 days)"),
        (
            "a = 1979-05-27T24:00:00", 1, 5,
            "the time 24:00:00 does not exist (hours run from 00 to 23, minutes from 00 to 59 and seconds from 00 to 60)"
        ),
        (
            "a = 07:60:00", 1, 5,
            "the time 07:60:00 does not exist (hours run from 00 to 23, minutes from 00 to 59 and seconds from 00 to 60)"
        ),
        ("a = 1979-05-27T07:32:00+24:00", 1, 5, "the offset +24:00 does not exist (offsets run from -23:59 to +23:59)"),
        (
            "a = 07:32:00Z", 1, 5,
            "a time of day must be written as HH:MM:SS, optionally with a fraction, such as 07:32:00.5"
        ),
        (
            "a = 7:32:00", 1, 5,
            "a time of day must be written as HH:MM:SS, optionally with a fraction, such as 07:32:00.5"
        ),
        // Control characters and line ends.
        ("a = 1 # x\u{1}y\n", 1, 10, "a comment holds a control character"),
        ("a = 1\rb = 2\n", 1, 6, "a carriage return must be followed by a line feed"),
        ("a = 1\n\u{0} = 2\n", 2, 1, "expected a key, such as name = \"value\", found a control character"),
        // Structure.
        ("a = { b = 1, }\n", 1, 14, "an inline table cannot end with a comma; remove the \",\" before \"}\""),
        ("a = { b = 1,\n c = 2 }\n", 1, 13, "expected a key, such as name = \"value\", found the end of the line"),
        (
            "a = { b = 1\n}\n", 1, 12,
            "expected \",\" or \"}\" in the inline table (which must fit on one line), found the end of the line"
        ),
        ("a = [1 2]\n", 1, 8, "expected \",\" or \"]\" in the array, found \"2\""),
        ("a = [1,\n", 2, 1, "expected a value, found the end of the file"),
        ("a = 1 2\n", 1, 7, "expected the end of the line, found \"2\""),
        ("a = yes\n", 1, 5, "expected a value, found \"yes\" (a string must be in quotes, such as \"yes\")"),
        ("a = True\n", 1, 5, "expected a value, found \"True\" (a boolean is written true or false, in lower case)"),
        ("a = truex\n", 1, 5, "expected a value, found \"truex\" (a string must be in quotes, such as \"truex\")"),
        ("a 1\n", 1, 3, "expected \"=\" after the key, found \"1\""),
        ("a. = 1\n", 1, 4, "expected a key, such as name = \"value\", found \"=\""),
        ("\"\"\"a\"\"\" = 1\n", 1, 1, "a key cannot be a multi-line string"),
        (
            "café = 1\n", 1, 4,
            "a bare key may hold only ASCII letters, digits, \"-\" and \"_\", not \"é\"; put the key in quotes"
        ),
        ("[a\nb = 1\n", 1, 3, "expected \"]\" to close the table header, found the end of the line"),
        ("[[a]\n", 1, 5, "expected \"]]\" to close the array-of-tables header, found the end of the line"),
        ("[a] b = 1\n", 1, 5, "expected the end of the line, found \"b\""),
        ("x = 1\n[]\n", 2, 2, "a table header must hold a key, such as [apps.mail]"),
    ])
    func refusedTextNamesLineAndColumn(text: String, line: Int, column: Int, reason: String) {
        let error = failure(text)
        #expect(error == TOMLError(line: line, column: column, reason: reason), "\(text.debugDescription)")
    }

    /// Nesting deeper than the reader follows is refused rather than followed.
    @Test func deepNestingIsRefused() {
        let arrays = "a = " + String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(failure(arrays)?.reason.hasPrefix("keys, tables and arrays are nested too deeply") == true)
        let header = "[" + Array(repeating: "k", count: 200).joined(separator: ".") + "]"
        #expect(failure(header)?.reason.hasPrefix("keys, tables and arrays are nested too deeply") == true)
        let fits = "a = " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(failure(fits) == nil)
    }

    /// A column counts characters, not bytes, so text after a non-ASCII character is placed right.
    @Test func columnsCountCharacters() {
        #expect(
            failure("é = 1\n\"ü\" = 1 x\n")
                == TOMLError(
                    line: 1, column: 1,
                    reason:
                        "a bare key may hold only ASCII letters, digits, \"-\" and \"_\", not \"é\"; put the key in quotes"
                ))
        #expect(failure("\"ü€\" = 1 x\n")?.column == 10)
    }

    /// The error's description names the line and the column.
    @Test func errorDescriptionNamesLineAndColumn() {
        #expect(
            failure("a = 1\nb = \n")?.description == "line 2, column 5: expected a value, found the end of the line.")
    }
}
