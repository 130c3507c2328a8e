// The layers' types that LatchkeyServer's public API names (`ServerConfiguration.database`, the error its
// checks throw), re-exported so that an application embedding Latchkey imports LatchkeyServer alone.
@_exported import enum LatchkeyDatabase.DatabaseLocation
@_exported import struct LatchkeyRuntime.InvalidSetting
