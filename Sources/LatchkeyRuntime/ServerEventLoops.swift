import NIOConcurrencyHelpers
import NIOPosix

/// The servers' event-loop groups, one per thread count, made on first use and kept for the life of the
/// process like NIO's own singleton (tests start many servers; none of them owns its threads).
package enum ServerEventLoops {
    private static let groups = NIOLockedValueBox<[Int: MultiThreadedEventLoopGroup]>([:])

    package static func group(threads: Int) -> MultiThreadedEventLoopGroup {
        groups.withLockedValue { groups in
            if let group = groups[threads] { return group }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            groups[threads] = group
            return group
        }
    }
}
