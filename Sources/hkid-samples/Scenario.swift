import CCardRender
import Foundation
import HKIDRegression

/// A scripted hand-held card session, as written in samples/scenarios/*.yaml.
/// Everything a sample video shows is in here; rendering it twice gives the
/// same frames.
struct Scenario: Decodable {
    /// Card type: "2018" or "2003".
    var card: String
    var description: String
    /// Frame size in pixels, [width, height].
    var size: [Int]
    var fps: Int = 30
    var seed: UInt64
    /// What is in front of the camera: "genuine" (the card), "copy-colour"
    /// or "copy-grey" (a paper copy of it), "screen" (a recording of the
    /// genuine scene replayed on a screen and filmed).
    var material: String = "genuine"
    /// Camera field of view, as the detector assumes by default.
    var hfov: Double = 62
    /// Where the card starts.
    var pose: Pose
    /// Each move eases in and out from where the previous one ended.
    var moves: [Move]
    var hand: Hand = Hand()
    var effects: Effects = Effects()
    /// Photographs instead of the procedural drawings (harder scenes).
    var photos: Photos = Photos()
    /// The person at the webcam, sitting behind the card; none when absent.
    var person: Person?
    /// How the video is encoded.
    var encode: Encode = Encode()
    var expect: Expected

    struct Pose: Decodable {
        /// Card centre as fractions of the frame's width and height.
        var x: Double = 0.5
        var y: Double = 0.5
        /// Depth of the card centre, mm.
        var distance: Double = 210
        var yaw: Double = 0
        var pitch: Double = 0
        var roll: Double = 0
    }

    /// `{hold: 1.0}` keeps still for a second; `{to: {yaw: 30}, over: 1.2}`
    /// turns to yaw 30 in 1.2 s, other values unchanged.
    struct Move: Decodable {
        var hold: Double?
        var to: PartialPose?
        var over: Double?
    }

    struct PartialPose: Decodable {
        var x: Double?, y: Double?, distance: Double?, yaw: Double?, pitch: Double?, roll: Double?
    }

    /// What makes it look held by a person rather than a robot.
    struct Hand: Decodable {
        /// Amplitude of the angular tremor, degrees.
        var tremor_deg: Double = 0.5
        /// Amplitude of the positional tremor, pixels.
        var tremor_px: Double = 1.0
        /// Amplitude of the slow drift of the card centre, pixels.
        var drift_px: Double = 6
    }

    struct Effects: Decodable {
        var noise: Double = 2.0
        var blur: Double = 0.0
        /// Strength of the specular highlight that slides across the card as
        /// it tilts (a fixed light reflected in the laminate); 0 disables.
        var specular: Double = 0.5
        /// Blur along the motion of fast moves, as a camera shutter does.
        var motion_blur: Bool = true
        var brightness: Double = 1.0
        /// Strong glare patches at fixed places on the card, for a while.
        var glare: [GlarePatch] = []
        var thumb: Thumb?
        /// Times during which no card is in the picture at all.
        var hidden: [Window] = []
        /// More of the hand: thumbs over and palms behind any edge.
        var hands: [HandPart] = []
        /// Bold printed boxes on the face: the portrait frame and an inset border.
        var inner_frames: Bool = false
        /// The card's optically variable patch (every genuine card has one;
        /// a copy has it printed at its front-on hue).
        var ovi: Bool = true
        /// The phone's torch, 0...1: a hotspot where the laminate mirrors the lens.
        var torch: Double = 0
        /// When the torch comes on, seconds (the SDK's sample app turns it on at RESET).
        var torch_from: Double = 0
        /// Material "screen": the share of the frame's width its dark bezel takes, 0...0.2.
        var screen_bezel: Double = 0
        /// A straight-edged shadow over desk, card and hand.
        var shadow: Shadow?
    }

    /// The shadow of something above the scene (a phone, a person leaning
    /// over the desk): one straight edge across the whole frame.
    struct Shadow: Decodable {
        /// 0...0.85: the share of the light the shadowed side loses.
        var strength: Double = 0.5
        /// A point on the shadow's edge, fractions of the frame's width and height.
        var x: Double = 0.5
        var y: Double = 0.5
        /// Direction from the edge into the shadow, degrees from +x (image y down).
        var angle: Double = 0
        /// Width of the penumbra, pixels.
        var soft: Double = 12
    }

    /// A thumb lying on the card over an edge, or a palm behind the card
    /// sticking out past an edge (skin touching the card's outline).
    struct HandPart: Decodable {
        var kind: String = "thumb"
        var edge: String = "bottom"
        var pos: Double = 0.5
        /// Thumb: its width, mm. Palm: its extent along the edge, mm.
        var width: Double = 18
        /// Thumb: how far onto the card, mm. Palm: how far past the edge, mm.
        var reach: Double = 9
    }

    /// The person behind the card: skin, hair and clothes come from the seed.
    struct Person: Decodable {
        /// The head's width as a fraction of the frame's width, 0.05...0.5.
        var size: Double = 0.2
        /// The head's centre, fraction of the frame's width, -0.5...1.5.
        var x: Double = 0.5
        /// A name badge of the card's aspect on a lanyard on the chest.
        var badge: Bool = false
    }

    /// JPEG files, relative to the scenario file.
    struct Photos: Decodable {
        var background: String?
        /// 0...0.95: the background's levels squeezed towards white (a light desk).
        var background_lift: Double = 0
        /// The card face's paper: the printing goes over the photograph.
        var paper: String?
        /// The holder's photograph in the portrait boxes.
        var portrait: String?
    }

    struct Encode: Decodable {
        /// "h264" (x264) or "mpeg4" (MPEG-4 part 2).
        var codec: String = "h264"
        /// "full" (0-255, as the original samples) or "limited" (16-235, as phones record).
        var range: String = "full"
    }

    struct Window: Decodable {
        var from: Double
        var to: Double
        func contains(_ t: Double) -> Bool { t >= from && t < to }
    }

    struct GlarePatch: Decodable {
        var from: Double
        var to: Double
        var u: Double = 0.5
        var v: Double = 0.5
        /// Radius of the saturated core, mm of card.
        var radius: Double = 10
        var strength: Double = 1
    }

    struct Thumb: Decodable {
        var edge: String = "bottom"
        var pos: Double = 0.5
        var width: Double = 18
        var reach: Double = 9
    }

    struct Expected: Decodable {
        var overtime: Double = 30
        var retCode: Int
        var statuses: [String]
        var alerts: [String] = []
    }

    var width: Int { size[0] }
    var height: Int { size[1] }
    var duration: Double { moves.reduce(0) { $0 + ($1.hold ?? $1.over ?? 0) } }

    static let edges = ["top", "right", "bottom", "left"]
    static let materials: [String: cr_material] = [
        "genuine": CR_MATERIAL_GENUINE, "copy-colour": CR_MATERIAL_COLOUR_COPY,
        "copy-grey": CR_MATERIAL_GREY_COPY, "screen": CR_MATERIAL_SCREEN,
    ]

    static func load(_ path: String) throws -> Scenario {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try ScenarioDecoder.decode(text, path: path)
    }

    func validate(_ path: String) throws {
        func fail(_ why: String) -> ScenarioError { ScenarioError(path: path, reason: why) }
        guard ["2018", "2003"].contains(card) else { throw fail("card must be \"2018\" or \"2003\"") }
        guard Self.materials.keys.contains(material) else {
            throw fail("material must be genuine, copy-colour, copy-grey or screen")
        }
        guard (0...1).contains(effects.torch) else { throw fail("effects.torch must be 0...1") }
        guard (0...0.2).contains(effects.screen_bezel) else { throw fail("effects.screen_bezel must be 0...0.2") }
        guard size.count == 2, width >= 64, height >= 64, width % 2 == 0, height % 2 == 0 else {
            throw fail("size must be [width, height], even, at least 64")
        }
        guard fps > 0, fps <= 120 else { throw fail("fps must be 1...120") }
        for (index, move) in moves.enumerated() where (move.hold == nil) == (move.to == nil) {
            throw fail("move \(index + 1) must have either hold or to")
        }
        guard duration > 0 else { throw fail("the moves add up to no time") }
        if let thumb = effects.thumb, !Self.edges.contains(thumb.edge) {
            throw fail("effects.thumb.edge must be top, right, bottom or left")
        }
        guard effects.hands.count <= 4 else { throw fail("effects.hands has at most 4 parts") }
        for (index, part) in effects.hands.enumerated() {
            let key = "effects.hands[\(index)]"
            guard ["thumb", "palm"].contains(part.kind) else { throw fail("\(key).kind must be thumb or palm") }
            guard Self.edges.contains(part.edge) else { throw fail("\(key).edge must be top, right, bottom or left") }
            guard (-0.5...1.5).contains(part.pos) else { throw fail("\(key).pos must be -0.5...1.5") }
            let thumb = part.kind == "thumb"
            guard part.width > (thumb ? 0 : 1), part.width < (thumb ? 60 : 150) else {
                throw fail("\(key).width must be \(thumb ? "0...60" : "1...150") mm")
            }
            guard part.reach >= (thumb ? 0 : 1), part.reach < (thumb ? 60 : 150) else {
                throw fail("\(key).reach must be \(thumb ? "0...60" : "1...150") mm")
            }
        }
        if let shadow = effects.shadow {
            guard (0...0.85).contains(shadow.strength) else { throw fail("effects.shadow.strength must be 0...0.85") }
            guard (0...500).contains(shadow.soft) else { throw fail("effects.shadow.soft must be 0...500 px") }
        }
        guard (0...0.95).contains(photos.background_lift) else { throw fail("photos.background_lift must be 0...0.95") }
        if let person {
            guard (0.05...0.5).contains(person.size) else { throw fail("person.size must be 0.05...0.5") }
            guard (-0.5...1.5).contains(person.x) else { throw fail("person.x must be -0.5...1.5") }
        }
        guard ["h264", "mpeg4"].contains(encode.codec) else { throw fail("encode.codec must be h264 or mpeg4") }
        guard ["full", "limited"].contains(encode.range) else { throw fail("encode.range must be full or limited") }
    }
}

struct ScenarioError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "\(path): \(reason)" }
}

// Synthesised Decodable ignores property defaults, so every struct with
// optional keys decodes them explicitly with `or:`.
private extension KeyedDecodingContainer {
    func decode<T: Decodable>(_ key: Key, or fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? fallback
    }
}

extension Scenario {
    private enum CodingKeys: String, CodingKey {
        case card, description, size, fps, seed, material, hfov, pose, moves, hand, effects, photos, person, encode
        case expect
    }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        card = try c.decode(String.self, forKey: .card)
        description = try c.decode(.description, or: "")
        size = try c.decode([Int].self, forKey: .size)
        fps = try c.decode(.fps, or: 30)
        seed = try c.decode(UInt64.self, forKey: .seed)
        material = try c.decode(.material, or: "genuine")
        hfov = try c.decode(.hfov, or: 62)
        pose = try c.decode(.pose, or: Pose())
        moves = try c.decode([Move].self, forKey: .moves)
        hand = try c.decode(.hand, or: Hand())
        effects = try c.decode(.effects, or: Effects())
        photos = try c.decode(.photos, or: Photos())
        person = try c.decodeIfPresent(Person.self, forKey: .person)
        encode = try c.decode(.encode, or: Encode())
        expect = try c.decode(Expected.self, forKey: .expect)
    }
}

extension Scenario.Pose {
    private enum CodingKeys: String, CodingKey { case x, y, distance, yaw, pitch, roll }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        x = try c.decode(.x, or: 0.5); y = try c.decode(.y, or: 0.5); distance = try c.decode(.distance, or: 210)
        yaw = try c.decode(.yaw, or: 0); pitch = try c.decode(.pitch, or: 0); roll = try c.decode(.roll, or: 0)
    }
}

extension Scenario.Hand {
    private enum CodingKeys: String, CodingKey { case tremor_deg, tremor_px, drift_px }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tremor_deg = try c.decode(.tremor_deg, or: 0.5); tremor_px = try c.decode(.tremor_px, or: 1.0)
        drift_px = try c.decode(.drift_px, or: 6)
    }
}

extension Scenario.Effects {
    private enum CodingKeys: String, CodingKey {
        case noise, blur, specular, motion_blur, brightness, glare, thumb, hidden, hands, inner_frames
        case ovi, torch, torch_from, screen_bezel, shadow
    }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        noise = try c.decode(.noise, or: 2.0); blur = try c.decode(.blur, or: 0); specular = try c.decode(.specular, or: 0.5)
        motion_blur = try c.decode(.motion_blur, or: true); brightness = try c.decode(.brightness, or: 1)
        glare = try c.decode(.glare, or: []); thumb = try c.decodeIfPresent(Scenario.Thumb.self, forKey: .thumb)
        hidden = try c.decode(.hidden, or: [])
        hands = try c.decode(.hands, or: []); inner_frames = try c.decode(.inner_frames, or: false)
        ovi = try c.decode(.ovi, or: true); torch = try c.decode(.torch, or: 0); torch_from = try c.decode(.torch_from, or: 0)
        screen_bezel = try c.decode(.screen_bezel, or: 0)
        shadow = try c.decodeIfPresent(Scenario.Shadow.self, forKey: .shadow)
    }
}

extension Scenario.Shadow {
    private enum CodingKeys: String, CodingKey { case strength, x, y, angle, soft }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        strength = try c.decode(.strength, or: 0.5); x = try c.decode(.x, or: 0.5); y = try c.decode(.y, or: 0.5)
        angle = try c.decode(.angle, or: 0); soft = try c.decode(.soft, or: 12)
    }
}

extension Scenario.HandPart {
    private enum CodingKeys: String, CodingKey { case kind, edge, pos, width, reach }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decode(.kind, or: "thumb"); edge = try c.decode(.edge, or: "bottom"); pos = try c.decode(.pos, or: 0.5)
        width = try c.decode(.width, or: 18); reach = try c.decode(.reach, or: 9)
    }
}

extension Scenario.Person {
    private enum CodingKeys: String, CodingKey { case size, x, badge }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        size = try c.decode(.size, or: 0.2); x = try c.decode(.x, or: 0.5); badge = try c.decode(.badge, or: false)
    }
}

extension Scenario.Photos {
    private enum CodingKeys: String, CodingKey { case background, background_lift, paper, portrait }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        background = try c.decodeIfPresent(String.self, forKey: .background)
        background_lift = try c.decode(.background_lift, or: 0)
        paper = try c.decodeIfPresent(String.self, forKey: .paper)
        portrait = try c.decodeIfPresent(String.self, forKey: .portrait)
    }
}

extension Scenario.Encode {
    private enum CodingKeys: String, CodingKey { case codec, range }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        codec = try c.decode(.codec, or: "h264"); range = try c.decode(.range, or: "full")
    }
}

extension Scenario.GlarePatch {
    private enum CodingKeys: String, CodingKey { case from, to, u, v, radius, strength }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        from = try c.decode(Double.self, forKey: .from); to = try c.decode(Double.self, forKey: .to)
        u = try c.decode(.u, or: 0.5); v = try c.decode(.v, or: 0.5)
        radius = try c.decode(.radius, or: 10); strength = try c.decode(.strength, or: 1)
    }
}

extension Scenario.Thumb {
    private enum CodingKeys: String, CodingKey { case edge, pos, width, reach }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        edge = try c.decode(.edge, or: "bottom"); pos = try c.decode(.pos, or: 0.5)
        width = try c.decode(.width, or: 18); reach = try c.decode(.reach, or: 9)
    }
}

extension Scenario.Expected {
    private enum CodingKeys: String, CodingKey { case overtime, retCode, statuses, alerts }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        overtime = try c.decode(.overtime, or: 30); retCode = try c.decode(Int.self, forKey: .retCode)
        statuses = try c.decode([String].self, forKey: .statuses); alerts = try c.decode(.alerts, or: [])
    }
}
