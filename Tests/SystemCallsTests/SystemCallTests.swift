import Glibc
import SystemCalls
import XCTest

final class SystemCallTests: XCTestCase {
    func testAResultPassesThroughAndAFailureCarriesItsErrno() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(try SystemCall.run("pipe") { pipe(&fds) }, 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        XCTAssertEqual(try SystemCall.run("write") { write(fds[1], "abc", 3) }, 3)

        XCTAssertThrowsError(try SystemCall.run("open /nonexistent/x") { open("/nonexistent/x", O_RDONLY) }) { error in
            XCTAssertEqual(error as? SystemCallError, SystemCallError("open /nonexistent/x", code: ENOENT))
            XCTAssertEqual("\(error)", "open /nonexistent/x: No such file or directory")
        }
    }

    func testAnInterruptedCallRunsAgainUnlessItMustNot() throws {
        var calls = 0
        let interruptedOnce = { () -> Int32 in
            calls += 1
            if calls == 1 {
                errno = EINTR
                return -1
            }
            return 7
        }
        XCTAssertEqual(try SystemCall.run("read", interruptedOnce), 7)
        XCTAssertEqual(calls, 2)

        calls = 0
        XCTAssertThrowsError(try SystemCall.run("connect", retryingInterrupted: false, interruptedOnce)) { error in
            XCTAssertEqual((error as? SystemCallError)?.code, EINTR)
        }
        XCTAssertEqual(calls, 1)
    }

    func testTheQueriesGlibcDoesNotExport() throws {
        XCTAssertGreaterThan(try LinuxQueries.fileSystemMagic("/"), 0)
        XCTAssertThrowsError(try LinuxQueries.fileSystemMagic("/nonexistent/x")) { error in
            XCTAssertEqual((error as? SystemCallError)?.code, ENOENT)
        }
        XCTAssertTrue((0...5).contains(try LinuxQueries.clockState()))
    }
}
