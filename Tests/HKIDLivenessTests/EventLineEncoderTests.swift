@testable import HKIDLiveness
import Testing

/// SPEC section 6, byte for byte.
@Suite("JSON lines")
struct EventLineEncoderTests {
    let encoder = EventLineEncoder()

    @Test func operationLine() {
        let begin = OperationCommand(currentStatus: .begin, hintKey: .place,
                                     nextOperationHint: HintKey.place.text(in: .en), t: .zero)
        #expect(encoder.line(for: .operation(begin))
                == #"{"type":"operation","status":"BEGIN","value":0,"hint":"Place the front of the card inside the frame","t":0.0}"#)

        let orth = OperationCommand(currentStatus: .orth, hintKey: .right,
                                    nextOperationHint: HintKey.right.text(in: .zhHK), t: MediaTime(seconds: 1.53))
        #expect(encoder.line(for: .operation(orth))
                == #"{"type":"operation","status":"ORTH","value":1,"hint":"請緩慢向右翻轉","t":1.53}"#)
    }

    @Test func resultLines() {
        let first = LivenessResult(code: .first, t: MediaTime(seconds: 1.53), delta: "{}", images: [])
        #expect(encoder.line(for: .result(first), imagePaths: [.card: "out/first-card.jpg"])
                == #"{"type":"result","success":false,"retCode":1,"message":"first","t":1.53,"images":{"card":"out/first-card.jpg"}}"#)

        let success = LivenessResult(code: .success, t: MediaTime(seconds: 8.92), delta: "{}", images: [])
        #expect(encoder.line(for: .result(success), imagePaths: [.head: "out/head.jpg", .card: "out/card.jpg"])
                == #"{"type":"result","success":true,"retCode":0,"message":"","t":8.92,"images":{"card":"out/card.jpg","head":"out/head.jpg"}}"#)

        let lost = LivenessResult(code: .lost, t: MediaTime(seconds: 3.4), delta: "{}", images: [])
        #expect(encoder.line(for: .result(lost))
                == #"{"type":"result","success":false,"retCode":3,"message":"lost","t":3.4,"images":{}}"#)
    }

    @Test func frameLines() {
        let card = CardMeasurement(
            corners: [CardPoint(x: 412.1, y: 220.5), CardPoint(x: 868.0, y: 231.2),
                      CardPoint(x: 861.7, y: 520.9), CardPoint(x: 405.3, y: 509.8)],
            yaw: 3.1, pitch: -0.4, roll: 1.2, speed: 14.0, widthRatio: 0.36, glare: 0.01, sharpness: 0.82)
        #expect(encoder.line(for: .frame(FrameTrace(t: MediaTime(nanoseconds: 1_566_666_667), card: card)))
                == #"{"type":"frame","t":1.567,"card":{"corners":[[412.1,220.5],[868.0,231.2],[861.7,520.9],[405.3,509.8]],"yaw":3.1,"pitch":-0.4,"roll":1.2,"width_ratio":0.36,"glare":0.01,"sharpness":0.82,"speed":14.0}}"#)
        #expect(encoder.line(for: .frame(FrameTrace(t: MediaTime(seconds: 1.6), card: nil)))
                == #"{"type":"frame","t":1.6,"card":null}"#)
    }

    @Test func endLine() {
        #expect(encoder.endLine(counters: FrameCounters(received: 268, analysed: 268, dropped: 0), seconds: 0.41)
                == #"{"type":"end","frames":268,"analysed":268,"dropped":0,"seconds":0.41}"#)
    }

    @Test(arguments: [
        (0.0, 3, "0.0"), (-0.0001, 3, "0.0"), (1.5304, 3, "1.53"), (-0.44, 1, "-0.4"), (14, 1, "14.0"),
        (2.0005, 3, "2.001"), (-12.25, 1, "-12.3"), (Double.nan, 1, "null"), (100, 3, "100.0"),
    ])
    func numbers(_ value: Double, _ decimals: Int, _ text: String) {
        #expect(JSONText.number(value, decimals: decimals) == text)
    }

    @Test func stringsAreEscaped() {
        #expect(JSONText.string("a\"b\\c\nd\u{1}") == #""a\"b\\c\nd\u0001""#)
    }

    @Test func sessionEventsEncode() {
        let session = makeSession()
        let lines = (session.startDetect() + session.play(FlowTests.genuine)).map { encoder.line(for: $0) }
        #expect(lines.first == #"{"type":"operation","status":"BEGIN","value":0,"hint":"Place the front of the card inside the frame","t":0.0}"#)
        // Measurements without pixels: nothing for the liveness checks to judge.
        #expect(lines.last == #"{"type":"result","success":true,"retCode":0,"message":"","t":2.2,"images":{},"liveness":{"mode":"enforce","verdict":"unmeasured","spoofScore":0.5,"checks":[]}}"#)
    }
}
